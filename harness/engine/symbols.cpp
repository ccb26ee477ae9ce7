#include "harness/engine/symbols.h"

#include "reference/wire/aeth_syndrome.h"
#include "reference/wire/opcode.h"

namespace mr::engine {

std::optional<uint64_t> SymbolTable::get(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

std::optional<uint64_t> enum_value(const std::string& name) {
  if (auto op = wire::opcode_by_name(name)) return *op;  // CNP among them
  // ACK stands for the ACK without end-to-end credit when injected; as an expected value a
  // syndrome class matches any ACK (syndrome_class).
  if (auto s = wire::syndrome_by_name(name)) return *s;
  return std::nullopt;
}

SyndromeClass syndrome_class(const std::string& name) {
  if (name == "ACK") return SyndromeClass::kAck;
  if (name == "RNR_NAK") return SyndromeClass::kRnrNak;
  return SyndromeClass::kNone;
}

}  // namespace mr::engine
