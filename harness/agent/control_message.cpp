#include "harness/agent/control_message.h"

#include <array>
#include <functional>
#include <utility>

#include "harness/agent/control_parse.h"
#include "harness/agent/json_duplicate_member.h"
#include "harness/agent/json_reader.h"
#include "reference/memory/access.h"
#include "reference/memory/memory_table.h"
#include "reference/transport/ext/ev_table.h"
#include "reference/transport/qp_state.h"

namespace mr::agent {
namespace {

using OpParser = Result<Operation> (*)(ObjectReader& r);

// Unwraps a Result into `var`, or returns its error from the enclosing parser. `var` names
// a new variable, so it cannot be parenthesized.
// NOLINTBEGIN(bugprone-macro-parentheses)
#define MR_READ(var, expr)                                    \
  auto var##_result = (expr);                                 \
  if (!var##_result) return Unexpected(var##_result.error()); \
  auto var = std::move(*var##_result)
// NOLINTEND(bugprone-macro-parentheses)

template <class Op>
Result<Operation> finish(ObjectReader& r, Op op) {
  if (auto done = r.finish(); !done) return Unexpected(done.error());
  return Operation(std::move(op));
}

Result<Operation> parse_hello(ObjectReader& r) {
  MR_READ(token, r.string("token", 1024));
  MR_READ(protocol, r.u32("protocol"));
  MR_READ(client, r.optional_string("client", 256));
  return finish(r, op::Hello{std::move(token), protocol, client.value_or("")});
}

Result<Operation> parse_reg_mr(ObjectReader& r) {
  op::RegMr m;
  MR_READ(pd, r.u32("pd"));
  MR_READ(length, r.u64("length", memory::kMaxMrSize));
  MR_READ(va, r.optional_u64("va"));
  const nlohmann::json* access = r.member("access");
  uint32_t bits = 0;
  if (access != nullptr) {
    MR_READ(parsed, parse_access_list(*access, "access", memory::kAllAccess));
    bits = parsed;
  }
  m.args = RegMrArgs{pd, length, bits, va};
  return finish(r, m);
}

Result<Operation> parse_create_qp(ObjectReader& r) {
  op::CreateQp q;
  auto& init = q.args.init;
  MR_READ(pd, r.u32("pd"));
  MR_READ(send_cq, r.u32("send_cq"));
  MR_READ(recv_cq, r.u32("recv_cq"));
  MR_READ(srq, r.optional_u64("srq", 0xffffffff));
  MR_READ(type, r.string("type", 16));
  if (!transport::qp_type_from_string(type, init.type))
    return control_error(ErrorCode::kEinval, "must be RC, UC or UD", "type");
  MR_READ(max_send_wr, r.u64_or("max_send_wr", 256, 1U << 20));
  MR_READ(max_recv_wr, r.u64_or("max_recv_wr", 256, 1U << 20));
  if (max_send_wr == 0) return control_error(ErrorCode::kEinval, "must be positive", "max_send_wr");
  if (max_recv_wr == 0) return control_error(ErrorCode::kEinval, "must be positive", "max_recv_wr");
  init.pd = pd;
  init.send_cq = send_cq;
  init.recv_cq = recv_cq;
  if (srq) init.srq = static_cast<uint32_t>(*srq);
  init.max_send_wr = static_cast<uint32_t>(max_send_wr);
  init.max_recv_wr = static_cast<uint32_t>(max_recv_wr);
  return finish(r, q);
}

Result<Operation> parse_modify_qp(ObjectReader& r) {
  MR_READ(qpn, r.u32("qpn", 0xffffff));
  MR_READ(attrs, r.object("attrs"));
  MR_READ(args, parse_modify_qp_attrs(qpn, *attrs, "attrs"));
  return finish(r, op::ModifyQp{args});
}

Result<Operation> parse_post_send(ObjectReader& r) {
  MR_READ(qpn, r.u32("qpn", 0xffffff));
  MR_READ(wr_json, r.object("wr"));
  MR_READ(wr, parse_send_wr(*wr_json, "wr"));
  return finish(r, op::PostSend{qpn, std::move(wr)});
}

Result<Operation> parse_post_recv(ObjectReader& r) {
  MR_READ(qpn, r.u32("qpn", 0xffffff));
  MR_READ(wr_json, r.object("wr"));
  MR_READ(wr, parse_recv_wr(*wr_json, "wr"));
  return finish(r, op::PostRecv{qpn, std::move(wr)});
}

Result<Operation> parse_post_srq_recv(ObjectReader& r) {
  MR_READ(srq, r.u32("srq"));
  MR_READ(wr_json, r.object("wr"));
  MR_READ(wr, parse_recv_wr(*wr_json, "wr"));
  return finish(r, op::PostSrqRecv{srq, std::move(wr)});
}

Result<Operation> parse_poll_cq(ObjectReader& r) {
  MR_READ(cq, r.u32("cq"));
  MR_READ(max, r.u64_or("max", 16, kMaxPollEntries));
  MR_READ(timeout_ms, r.u64_or("timeout_ms", 0, kMaxPollTimeoutMs));
  if (max == 0) return control_error(ErrorCode::kEinval, "must be positive", "max");
  return finish(r, op::PollCq{{cq, static_cast<uint32_t>(max), static_cast<uint32_t>(timeout_ms)}});
}

Result<Operation> parse_mem(ObjectReader& r, bool write) {
  MemArgs m;
  MR_READ(lkey, r.u32("lkey"));
  MR_READ(va, r.u64("va"));
  m.lkey = lkey;
  m.va = va;
  if (write) {
    const nlohmann::json* data = r.member("data");
    if (data == nullptr) return control_error(ErrorCode::kEinval, "is required", "data");
    MR_READ(bytes, parse_hex(*data, "data", kMaxMemTransfer));
    m.length = bytes.size();
    m.data = std::move(bytes);
    return finish(r, op::WriteMem{std::move(m)});
  }
  MR_READ(length, r.u64("length", kMaxMemTransfer));
  m.length = length;
  return finish(r, op::ReadMem{std::move(m)});
}

Result<Operation> parse_destroy(ObjectReader& r) {
  constexpr std::array<std::pair<std::string_view, ObjectKind>, 5> kKinds{{
      {"qp", ObjectKind::kQp},
      {"cq", ObjectKind::kCq},
      {"srq", ObjectKind::kSrq},
      {"mr", ObjectKind::kMr},
      {"pd", ObjectKind::kPd},
  }};
  MR_READ(kind, r.string("kind", 8));
  MR_READ(handle, r.u32("handle"));
  for (const auto& [name, value] : kKinds) {
    if (name == kind) return finish(r, op::Destroy{value, handle});
  }
  return control_error(ErrorCode::kEinval, "must be qp, cq, srq, mr or pd", "kind");
}

Result<Operation> parse_set_mutants(ObjectReader& r) {
  MR_READ(list, r.array("enable", 256));
  op::SetMutants m;
  for (size_t i = 0; i < list->size(); ++i) {
    const auto& name = (*list)[i];
    const std::string path = "enable[" + std::to_string(i) + "]";
    if (!name.is_string() || name.get_ref<const std::string&>().size() > 128) {
      return control_error(ErrorCode::kEinval, "must be a mutant name", path);
    }
    m.enable.push_back(name.get<std::string>());
  }
  return finish(r, std::move(m));
}

Result<Operation> parse_set_port(ObjectReader& r) {
  MR_READ(plane, r.u32("plane", transport::ext::EvTable::kMaxPlanes - 1));
  MR_READ(up, r.boolean("up"));
  return finish(r, op::SetPort{static_cast<uint8_t>(plane), up});
}

Result<Operation> parse_set_ev_state(ObjectReader& r) {
  MR_READ(qpn, r.u32("qpn", 0xffffff));
  MR_READ(ev, r.u32("ev", 0xffff));
  if (ev == 0) return control_error(ErrorCode::kEinval, "0 is not an entropy value", "ev");
  MR_READ(state, r.string("state", 16));
  // ASSUMED_BAD is the device's own finding (section 25.1), not management's to set.
  if (state != "DENIED" && state != "GOOD")
    return control_error(ErrorCode::kEinval, "must be DENIED or GOOD", "state");
  return finish(r, op::SetEvState{qpn, static_cast<uint16_t>(ev), state == "GOOD"});
}

template <class Op>
Result<Operation> parse_empty(ObjectReader& r) {
  return finish(r, Op{});
}

struct OpEntry {
  std::string_view name;
  OpParser parse;
};

// In the order of Operation's alternatives (op_name relies on it).
const std::array<OpEntry, std::variant_size_v<Operation>> kOps{{
    {"hello", parse_hello},
    {"capabilities", parse_empty<op::Capabilities>},
    {"create_pd", parse_empty<op::CreatePd>},
    {"reg_mr", parse_reg_mr},
    {"dereg_mr",
     [](ObjectReader& r) -> Result<Operation> {
       MR_READ(lkey, r.u32("lkey"));
       return finish(r, op::DeregMr{lkey});
     }},
    {"create_cq",
     [](ObjectReader& r) -> Result<Operation> {
       MR_READ(depth, r.u32("depth", 1U << 20));
       if (depth == 0) return control_error(ErrorCode::kEinval, "must be positive", "depth");
       return finish(r, op::CreateCq{depth});
     }},
    {"create_srq",
     [](ObjectReader& r) -> Result<Operation> {
       MR_READ(max_wr, r.u32("max_wr", 1U << 20));
       if (max_wr == 0) return control_error(ErrorCode::kEinval, "must be positive", "max_wr");
       return finish(r, op::CreateSrq{max_wr});
     }},
    {"create_qp", parse_create_qp},
    {"modify_qp", parse_modify_qp},
    {"query_qp",
     [](ObjectReader& r) -> Result<Operation> {
       MR_READ(qpn, r.u32("qpn", 0xffffff));
       return finish(r, op::QueryQp{qpn});
     }},
    {"post_send", parse_post_send},
    {"post_recv", parse_post_recv},
    {"post_srq_recv", parse_post_srq_recv},
    {"poll_cq", parse_poll_cq},
    {"req_notify_cq",
     [](ObjectReader& r) -> Result<Operation> {
       MR_READ(cq, r.u32("cq"));
       MR_READ(solicited_only, r.boolean_or("solicited_only", false));
       return finish(r, op::ReqNotifyCq{cq, solicited_only});
     }},
    {"get_cq_event",
     [](ObjectReader& r) -> Result<Operation> {
       MR_READ(cq, r.u32("cq"));
       MR_READ(timeout_ms, r.u64_or("timeout_ms", 0, kMaxPollTimeoutMs));
       return finish(r, op::GetCqEvent{cq, static_cast<uint32_t>(timeout_ms)});
     }},
    {"read_mem", [](ObjectReader& r) { return parse_mem(r, false); }},
    {"write_mem", [](ObjectReader& r) { return parse_mem(r, true); }},
    {"counters", parse_empty<op::Counters>},
    {"destroy", parse_destroy},
    {"reset", parse_empty<op::Reset>},
    {"set_mutants", parse_set_mutants},
    {"set_port", parse_set_port},
    {"set_ev_state", parse_set_ev_state},
    {"doctor", parse_empty<op::Doctor>},
    {"bye", parse_empty<op::Bye>},
}};

// Nesting depth of JSON text, counting brackets outside strings; stops early past `limit`.
size_t nesting_depth(std::string_view text, size_t limit) {
  size_t depth = 0;
  size_t deepest = 0;
  bool in_string = false;
  bool escaped = false;
  for (const char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
      if (deepest > limit) return deepest;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

#undef MR_READ

}  // namespace

Result<JsonLine> parse_json_line(std::string_view line) {
  if (line.size() > kMaxLineBytes) {
    return control_error(ErrorCode::kEproto, "line longer than 1 MiB");
  }
  if (nesting_depth(line, kMaxJsonDepth) > kMaxJsonDepth) {
    return control_error(ErrorCode::kEproto,
                         "nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
  }
  DuplicateMemberFinder duplicates;
  nlohmann::json j = nlohmann::json::parse(line, duplicates.callback(), /*allow_exceptions=*/false);
  if (j.is_discarded()) return control_error(ErrorCode::kEproto, "not a JSON text (or not UTF-8)");
  return JsonLine{std::move(j), duplicates.first()};
}

Expected<Request, RequestError> parse_request(const nlohmann::json& message) {
  if (!message.is_object()) {
    return Unexpected(
        RequestError{std::nullopt, {ErrorCode::kEproto, "a request is a JSON object", ""}});
  }
  ObjectReader top(message, "");
  auto id = top.u64("id");
  if (!id) {
    ControlError e = id.error();
    e.code = ErrorCode::kEproto;
    return Unexpected(RequestError{std::nullopt, std::move(e)});
  }
  auto fail = [&](ControlError e) { return Unexpected(RequestError{*id, std::move(e)}); };
  auto name = top.string("op", 64);
  if (!name) return fail(name.error());
  for (const OpEntry& entry : kOps) {
    if (entry.name != *name) continue;
    auto op = entry.parse(top);
    if (!op) return fail(op.error());
    return Request{*id, std::move(*op)};
  }
  return fail({ErrorCode::kEnotsup, "unknown op", "op"});
}

Expected<Request, RequestError> parse_request(const JsonLine& line) {
  if (!line.duplicate) return parse_request(line.value);
  const std::string message = "is named twice (a member must appear once)";
  if (*line.duplicate == "id") {
    return Unexpected(RequestError{std::nullopt, {ErrorCode::kEproto, message, "id"}});
  }
  // The id, when readable, comes from the rest of the request (a request without one is
  // refused as such first).
  auto request = parse_request(line.value);
  const std::optional<uint64_t> id = request ? request->id : request.error().id;
  if (!id) return request;
  return Unexpected(RequestError{id, {ErrorCode::kEinval, message, *line.duplicate}});
}

Expected<Request, RequestError> parse_request_line(std::string_view line) {
  auto json = parse_json_line(line);
  if (!json) return Unexpected(RequestError{std::nullopt, json.error()});
  return parse_request(*json);
}

std::string_view op_name(const Operation& op) { return kOps[op.index()].name; }

}  // namespace mr::agent
