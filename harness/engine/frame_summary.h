// File: frame_summary.h
//
// A frame as the report and the failure messages show it: one line ("RC_ACKNOWLEDGE psn
// 0x000100 dqpn 0x000011 syndrome 0x1f msn 1"), the decoded fields as JSON, and the packet
// a `>` line expected, side by side with it in the packet diff.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>
#include <string>

#include "harness/engine/symbols.h"
#include "harness/script/ast.h"

namespace mr::engine {

// One line; a malformed or non-RoCE frame says so and why.
std::string frame_summary(std::span<const uint8_t> frame);
// Every field, as `metaroce decode --json` gives it.
nlohmann::ordered_json decoded_json(std::span<const uint8_t> frame);
// Each layer with the fields the script gives, evaluated where they are numbers, "*" where
// they are don't-care.
nlohmann::ordered_json expected_json(const script::PacketExpr& p, const SymbolTable& symbols);

}  // namespace mr::engine
