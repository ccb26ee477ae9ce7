// File: dut_client.h
//
// The one way the harness talks to a DUT: a typed method per op of the DUT control protocol
// (docs/dut-control-protocol.md) over any function that sends one JSON request and returns
// its reply (an engine::DutPort's control, a dut::DutControl's call). Requests are built and
// replies read here only; the agent's error comes back as it is, and a reply with a member
// missing or of the wrong type is an EPROTO error naming the member and quoting the reply.
// Nothing here throws.
//
//   protocol::DutClient dut([&port](protocol::Json r) { return port.control(std::move(r)); });
//   auto done = dut.poll_cq(cq, 1, 100);  // Expected<std::vector<Completion>, ControlError>
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

#include "harness/protocol/control_error.h"
#include "harness/protocol/dut_messages.h"
#include "reference/error/expected.h"

namespace mr::protocol {

using Json = nlohmann::json;
using protocol::ControlError;
template <class T>
using Reply = Expected<T, ControlError>;

// Sends {"op": ..., members...} and returns the reply's members (without id and ok), or the
// agent's (or the transport's) error.
using SendRequest = std::function<Reply<Json>(Json request)>;

class DutClient {
 public:
  explicit DutClient(SendRequest send) : send_(std::move(send)) {}

  Reply<uint32_t> create_pd();
  Reply<MemoryRegion> reg_mr(const RegMr& r);
  Reply<void> dereg_mr(uint32_t lkey);
  Reply<uint32_t> create_cq(uint64_t depth);
  Reply<uint32_t> create_qp(const CreateQp& r);
  Reply<void> modify_qp(uint32_t qpn, const QpAttrs& attrs);
  Reply<QpInfo> query_qp(uint32_t qpn);
  Reply<void> post_send(uint32_t qpn, const SendWr& wr);
  Reply<void> post_recv(uint32_t qpn, const RecvWr& wr);
  // Waits at most timeout_ms (the protocol's bound, protocol::kMaxPollTimeoutMs) for the first.
  Reply<std::vector<Completion>> poll_cq(uint32_t cq, uint64_t max, uint64_t timeout_ms);
  Reply<void> req_notify_cq(uint32_t cq, bool solicited_only);
  // The CQ's events since the last get_cq_event, waiting at most timeout_ms for one.
  Reply<uint64_t> get_cq_event(uint32_t cq, uint64_t timeout_ms);
  // Exactly `length` bytes (at most protocol::kMaxMemTransfer), or an error.
  Reply<std::vector<uint8_t>> read_mem(uint32_t lkey, uint64_t va, uint64_t length);
  Reply<void> write_mem(uint32_t lkey, uint64_t va, std::span<const uint8_t> data);
  Reply<Counters> counters();
  // Part II (spec section 25.1): a plane's port goes down or comes up; management denies
  // ("DENIED") or allows ("GOOD") one EV of an Ext QP, and gets the entry's state after.
  Reply<void> set_port(uint64_t plane, bool up);
  Reply<std::string> set_ev_state(uint32_t qpn, uint64_t ev, const std::string& state);
  Reply<Capabilities> capabilities();
  // kind: qp, cq, srq, mr, pd.
  Reply<void> destroy(const std::string& kind, uint32_t handle);
  Reply<void> reset();
  // The session's first request: the token (none where the transport is trusted, in
  // process) and who is asking, at the protocol version this client speaks.
  Reply<void> hello(const std::string& token, const std::string& client);
  // The DUT host's readiness report, as the agent sent it (harness/doctor reads its schema,
  // doctor::report_from_json, so that this client does not link the host inspector).
  Reply<Json> doctor();
  // Ends the session politely; the agent closes the connection after answering.
  Reply<void> bye();

 private:
  // Sends `request`; the reply when it is an object, else EPROTO quoting it.
  Reply<Json> send(Json request);

  SendRequest send_;
};

// The JSON forms, as the protocol spells them: a request's members, a completion as the
// agent sent it (for reports), the device's identity and GIDs (for the run's manifest).
Json to_json(const QpAttrs& a);
Json to_json(const AddressVector& av);
Json to_json(const SendWr& wr);
Json to_json(const Completion& c);
Json to_json(const DeviceIdentity& d);
Json to_json(const Gid& g);

// Lowercase hex, as write_mem takes it; and its inverse (either case), nullopt when malformed.
std::string to_hex(std::span<const uint8_t> bytes);
std::optional<std::vector<uint8_t>> from_hex(const std::string& hex);

}  // namespace mr::protocol
