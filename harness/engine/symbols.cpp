#include "harness/engine/symbols.h"

#include <array>
#include <utility>

#include "reference/wire/opcode.h"

namespace mr::engine {
namespace {

constexpr std::array<std::pair<const char*, uint64_t>, 8> kSyndromes{{
    {"ACK", 0x1f},  // injected: no end-to-end credit; expected: any ACK syndrome
    {"RNR_NAK", 0x20},
    {"NAK_PSN_SEQUENCE_ERROR", 0x60},
    {"NAK_INVALID_REQUEST", 0x61},
    {"NAK_REMOTE_ACCESS_ERROR", 0x62},
    {"NAK_REMOTE_OPERATIONAL_ERROR", 0x63},
    {"NAK_INVALID_RD_REQUEST", 0x64},
    {"CNP", wire::kOpCnp},
}};

}  // namespace

std::optional<uint64_t> SymbolTable::get(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

std::optional<uint64_t> enum_value(const std::string& name) {
  if (auto op = wire::opcode_by_name(name)) return *op;
  for (const auto& [n, v] : kSyndromes) {
    if (name == n) return v;
  }
  return std::nullopt;
}

SyndromeClass syndrome_class(const std::string& name) {
  if (name == "ACK") return SyndromeClass::kAck;
  if (name == "RNR_NAK") return SyndromeClass::kRnrNak;
  return SyndromeClass::kNone;
}

}  // namespace mr::engine
