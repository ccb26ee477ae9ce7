#include "harness/agent/request_dispatcher.h"

#include <type_traits>

#include "harness/doctor/doctor.h"

namespace mr::agent {
namespace {

template <class>
inline constexpr bool kAlwaysFalse = false;

// A backend result as a reply body.
template <class T, class F>
Result<Json> body(Result<T> result, F&& to_body) {
  if (!result) return Unexpected(std::move(result.error()));
  if constexpr (std::is_void_v<T>) {
    return to_body();
  } else {
    return to_body(std::move(*result));
  }
}

Json empty() { return Json::object(); }

}  // namespace

DispatchResult RequestDispatcher::handle_line(std::string_view line) {
  auto request = parse_request_line(line);
  if (!request) return {serialize(error_reply(request.error().id, request.error().error)), false};
  return handle(*request);
}

DispatchResult RequestDispatcher::handle(const Request& request) {
  const bool hello = std::holds_alternative<op::Hello>(request.op);
  const bool bye = std::holds_alternative<op::Bye>(request.op);
  auto reply_body = run(request.op);
  if (!reply_body) return {serialize(error_reply(request.id, reply_body.error())), hello};
  return {serialize(ok_reply(request.id, std::move(*reply_body))), bye};
}

Result<Json> RequestDispatcher::run(const Operation& operation) {
  DutBackend& b = backend_;
  return std::visit(
      [&](const auto& o) -> Result<Json> {
        using Op = std::decay_t<decltype(o)>;
        if constexpr (std::is_same_v<Op, op::Hello>) {
          if (o.protocol != kProtocolVersion) {
            return control_error(ErrorCode::kEnotsup, "this agent speaks protocol 1", "protocol");
          }
          return Json{{"protocol", kProtocolVersion},
                      {"agent", "metaroce-agent"},
                      {"backend", backend_name_}};
        } else if constexpr (std::is_same_v<Op, op::Capabilities>) {
          return body(b.capabilities(), [](const Capabilities& c) { return to_json(c); });
        } else if constexpr (std::is_same_v<Op, op::CreatePd>) {
          return body(b.create_pd(), [](uint32_t pd) { return Json{{"pd", pd}}; });
        } else if constexpr (std::is_same_v<Op, op::RegMr>) {
          return body(b.reg_mr(o.args), [](const MrResult& mr) { return to_json(mr); });
        } else if constexpr (std::is_same_v<Op, op::DeregMr>) {
          return body(b.dereg_mr(o.lkey), empty);
        } else if constexpr (std::is_same_v<Op, op::CreateCq>) {
          return body(b.create_cq(o.depth), [](uint32_t cq) { return Json{{"cq", cq}}; });
        } else if constexpr (std::is_same_v<Op, op::CreateSrq>) {
          return body(b.create_srq(o.max_wr), [](uint32_t srq) { return Json{{"srq", srq}}; });
        } else if constexpr (std::is_same_v<Op, op::CreateQp>) {
          return body(b.create_qp(o.args), [](uint32_t qpn) { return Json{{"qpn", qpn}}; });
        } else if constexpr (std::is_same_v<Op, op::ModifyQp>) {
          return body(b.modify_qp(o.args), empty);
        } else if constexpr (std::is_same_v<Op, op::QueryQp>) {
          return body(b.query_qp(o.qpn), [](const transport::QpAttributes& a) {
            return Json{{"attrs", to_json(a)}};
          });
        } else if constexpr (std::is_same_v<Op, op::PostSend>) {
          return body(b.post_send(o.qpn, o.wr), empty);
        } else if constexpr (std::is_same_v<Op, op::PostRecv>) {
          return body(b.post_recv(o.qpn, o.wr), empty);
        } else if constexpr (std::is_same_v<Op, op::PostSrqRecv>) {
          return body(b.post_srq_recv(o.srq, o.wr), empty);
        } else if constexpr (std::is_same_v<Op, op::PollCq>) {
          return body(b.poll_cq(o.args), [](const std::vector<transport::Completion>& cs) {
            Json list = Json::array();
            for (const auto& c : cs) list.push_back(to_json(c));
            return Json{{"completions", std::move(list)}};
          });
        } else if constexpr (std::is_same_v<Op, op::ReqNotifyCq>) {
          return body(b.req_notify_cq(o.cq, o.solicited_only), empty);
        } else if constexpr (std::is_same_v<Op, op::GetCqEvent>) {
          return body(b.get_cq_events(o.cq, o.timeout_ms), [](uint32_t events) {
            return Json{{"events", events}};
          });
        } else if constexpr (std::is_same_v<Op, op::ReadMem>) {
          return body(b.read_mem(o.args), [](const std::vector<uint8_t>& data) {
            return Json{{"data", to_hex(data)}};
          });
        } else if constexpr (std::is_same_v<Op, op::WriteMem>) {
          return body(b.write_mem(o.args), empty);
        } else if constexpr (std::is_same_v<Op, op::Counters>) {
          return body(b.counters(), [](const std::vector<Counter>& c) {
            return Json{{"counters", to_json(c)}};
          });
        } else if constexpr (std::is_same_v<Op, op::Destroy>) {
          return body(b.destroy(o.kind, o.handle), empty);
        } else if constexpr (std::is_same_v<Op, op::Reset>) {
          return body(b.reset(), empty);
        } else if constexpr (std::is_same_v<Op, op::SetMutants>) {
          return body(b.set_mutants(o.enable), empty);
        } else if constexpr (std::is_same_v<Op, op::SetPort>) {
          return body(b.set_port(o.plane, o.up), empty);
        } else if constexpr (std::is_same_v<Op, op::SetEvState>) {
          return body(b.set_ev_state(o.qpn, o.ev, o.allowed), [](transport::ext::EvState s) {
            return Json{{"state", transport::ext::to_string(s)}};
          });
        } else if constexpr (std::is_same_v<Op, op::Doctor>) {
          // The host, not the device: the same answer from every backend.
          return doctor::to_json(doctor::run_doctor(doctor_));
        } else if constexpr (std::is_same_v<Op, op::Bye>) {
          return empty();
        } else {
          static_assert(kAlwaysFalse<Op>, "every op needs a case");
        }
      },
      operation);
}

}  // namespace mr::agent
