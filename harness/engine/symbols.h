// File: symbols.h
//
// The symbolic values a test case uses (P, Q, A.qpn, A.rkey, ...) bound to the live values
// of this run, and the enum names scripts may use (RC_SEND_ONLY, ACK, NAK_...).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace mr::engine {

class SymbolTable {
 public:
  void set(const std::string& name, uint64_t value) { values_[name] = value; }
  void erase(const std::string& name) { values_.erase(name); }
  std::optional<uint64_t> get(const std::string& name) const;
  const std::map<std::string, uint64_t>& all() const { return values_; }

 private:
  std::map<std::string, uint64_t> values_;
};

// Enum constants: opcode names (Scapy's), AETH syndromes and classes, QP states, WC names.
std::optional<uint64_t> enum_value(const std::string& name);

// The syndrome classes an expected AETH may name instead of one value.
enum class SyndromeClass : uint8_t { kNone, kAck, kRnrNak };
SyndromeClass syndrome_class(const std::string& name);

}  // namespace mr::engine
