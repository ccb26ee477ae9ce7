// File: control_message.h
//
// Requests of the DUT control protocol (docs/dut-control-protocol.md), parsed and
// validated into typed values. Nothing here touches a device: a request that parses is
// well-formed, and every malformed one is refused with an error naming the field, so a
// hostile message can reach no backend.
//
//   auto json = parse_json_line(line);            // EPROTO: not JSON, too deep, too long
//   auto request = parse_request(*json);           // EINVAL/ENOTSUP, with the field's path
//                                                  // (EINVAL too: a member named twice)
//   std::visit([&](const auto& op) { ... }, request->op);
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "harness/agent/control_vocabulary.h"
#include "harness/agent/dut_types.h"

namespace mr::agent {

namespace op {
struct Hello {
  std::string token;
  uint32_t protocol = 0;
  std::string client;
};
struct Capabilities {};
struct CreatePd {};
struct RegMr {
  RegMrArgs args;
};
struct DeregMr {
  uint32_t lkey = 0;
};
struct CreateCq {
  uint32_t depth = 0;
};
struct CreateSrq {
  uint32_t max_wr = 0;
};
struct CreateQp {
  CreateQpArgs args;
};
struct ModifyQp {
  ModifyQpArgs args;
};
struct QueryQp {
  uint32_t qpn = 0;
};
struct PostSend {
  uint32_t qpn = 0;
  transport::SendWr wr;
};
struct PostRecv {
  uint32_t qpn = 0;
  transport::RecvWr wr;
};
struct PostSrqRecv {
  uint32_t srq = 0;
  transport::RecvWr wr;
};
struct PollCq {
  PollCqArgs args;
};
struct ReqNotifyCq {
  uint32_t cq = 0;
  bool solicited_only = false;
};
struct GetCqEvent {
  uint32_t cq = 0;
  uint32_t timeout_ms = 0;
};
struct ReadMem {
  MemArgs args;
};
struct WriteMem {
  MemArgs args;
};
struct Counters {};
struct Destroy {
  ObjectKind kind = ObjectKind::kQp;
  uint32_t handle = 0;
};
struct Reset {};
struct SetMutants {
  std::vector<std::string> enable;
};
// Part II: a plane's port goes down or comes up (spec section 25.1).
struct SetPort {
  uint8_t plane = 0;
  bool up = true;
};
// Part II: management denies (allowed false, "DENIED") or allows ("GOOD") one EV of an Ext
// QP's set (spec section 25.1).
struct SetEvState {
  uint32_t qpn = 0;
  uint16_t ev = 0;
  bool allowed = true;
};
// RDMA readiness of the host the agent runs on (harness/doctor), whatever the backend.
struct Doctor {};
struct Bye {};
}  // namespace op

using Operation =
    std::variant<op::Hello, op::Capabilities, op::CreatePd, op::RegMr, op::DeregMr, op::CreateCq,
                 op::CreateSrq, op::CreateQp, op::ModifyQp, op::QueryQp, op::PostSend, op::PostRecv,
                 op::PostSrqRecv, op::PollCq, op::ReqNotifyCq, op::GetCqEvent, op::ReadMem,
                 op::WriteMem, op::Counters, op::Destroy, op::Reset, op::SetMutants, op::SetPort,
                 op::SetEvState, op::Doctor, op::Bye>;

struct Request {
  uint64_t id = 0;
  Operation op;
};

// A request that did not parse, with its id when the id itself was readable (the reply
// then carries it; otherwise the reply's id is null).
struct RequestError {
  std::optional<uint64_t> id;
  ControlError error;
};

inline constexpr size_t kMaxJsonDepth = 16;

// A line as JSON, with the first member its text names twice in one object (nlohmann keeps
// the last of the two silently; the protocol refuses the request).
struct JsonLine {
  nlohmann::json value;
  std::optional<std::string> duplicate;  // the member's path, as error.field spells it
};

// One line (without its newline) as a JSON value: EPROTO when it is longer than
// kMaxLineBytes, nested deeper than kMaxJsonDepth, or not JSON.
Result<JsonLine> parse_json_line(std::string_view line);
Expected<Request, RequestError> parse_request(const nlohmann::json& message);
// parse_request, refusing a duplicated member too: EINVAL naming it, with the request's id;
// EPROTO with a null id when the duplicated member is the id itself.
Expected<Request, RequestError> parse_request(const JsonLine& line);
// The two together.
Expected<Request, RequestError> parse_request_line(std::string_view line);

// The op names, in the order of Operation's alternatives.
std::string_view op_name(const Operation& op);

}  // namespace mr::agent
