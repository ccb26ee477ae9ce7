// File: evaluate.h
//
// Evaluates script expressions against the symbol table: numbers, symbols, enum names,
// + - * with 64-bit wrap, byte strings and bytes(N). Errors name the symbol or operand.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/engine/symbols.h"
#include "harness/script/ast.h"
#include "reference/error/expected.h"

namespace mr::engine {

Expected<uint64_t, std::string> evaluate_number(const script::Expr& e, const SymbolTable& symbols);
Expected<std::vector<uint8_t>, std::string> evaluate_bytes(const script::Expr& e,
                                                           const SymbolTable& symbols);

}  // namespace mr::engine
