// File: waiting_op.h
//
// The control ops that wait for the DUT (docs/dut-control-protocol.md: poll_cq, get_cq_event).
// Such a request carries timeout_ms, at most the protocol's protocol::kMaxPollTimeoutMs
// (protocol_limits.h), and its wait ends early at the first reply that shows what it waited
// for. One table, so that the engine (which splits a
// longer wait into several requests) and a DutPort that treats waiting specially (the
// embedded reference advances its virtual clock instead) agree on both.
//
//   if (auto done = wait_satisfied("poll_cq", reply); done && !*done) { /* wait on */ }
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

namespace mr::engine {

// Whether `reply` to `op` ends its wait; nullopt when `op` is not a waiting op.
inline std::optional<bool> wait_satisfied(std::string_view op, const nlohmann::json& reply) {
  if (op == "poll_cq") {
    const auto it = reply.find("completions");
    return it != reply.end() && !it->empty();
  }
  if (op == "get_cq_event") {
    // Read without throwing: a malformed count ends the wait, for the client to report.
    const auto it = reply.find("events");
    if (it == reply.end()) return false;
    return !it->is_number_integer() || it->get<int64_t>() != 0;
  }
  return std::nullopt;
}

inline bool is_waiting_op(std::string_view op) {
  return wait_satisfied(op, nlohmann::json::object()).has_value();
}

}  // namespace mr::engine
