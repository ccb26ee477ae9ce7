#include "harness/dut/dut_control.h"

#include <fstream>

#include "harness/agent/socket_io.h"
#include "harness/dut/tcp_transport.h"

namespace mr::dut {

DutControl::DutControl(std::unique_ptr<ControlTransport> transport, uint64_t timeout_ms)
    : transport_(std::move(transport)), timeout_ms_(timeout_ms) {}

Result<DutControl> DutControl::connect(const std::string& host, uint16_t port,
                                       const std::string& token, uint64_t timeout_ms) {
  auto transport = TcpTransport::connect(host, port, timeout_ms);
  if (!transport) return Unexpected(transport.error());
  DutControl control(std::move(*transport));
  if (auto hello = control.hello(token); !hello) {
    ControlError e = hello.error();
    if (e.code == ErrorCode::kEproto || e.code == ErrorCode::kEtimedout) {
      e.message += " (a wrong token gets no reply: check the token)";
    }
    return Unexpected(std::move(e));
  }
  return control;
}

Result<void> DutControl::hello(const std::string& token, const std::string& client) {
  return typed_client(*this).hello(token, client);
}

ControlError error_from_reply(const Json& reply) {
  const auto it = reply.find("error");
  if (it == reply.end() || !it->is_object() || !it->contains("code") ||
      !(*it)["code"].is_string()) {
    return {ErrorCode::kEproto, "malformed reply: " + agent::serialize(reply), ""};
  }
  const Json& e = *it;
  ControlError error;
  if (e.contains("message") && e["message"].is_string()) error.message = e["message"];
  if (e.contains("field") && e["field"].is_string()) error.field = e["field"];
  const std::string code = e["code"].get<std::string>();
  if (auto known = protocol::error_code_from_string(code)) {
    error.code = *known;
  } else {
    // Not one of the protocol's codes: the agent is at fault, and its code is kept for people.
    error.code = ErrorCode::kEproto;
    error.message = "unknown error code '" + code + "': " + error.message;
  }
  return error;
}

Result<Json> DutControl::call(std::string_view op, Json args, std::optional<uint64_t> timeout_ms) {
  const uint64_t id = next_id_++;
  uint64_t wait = timeout_ms.value_or(timeout_ms_);
  if (auto t = args.find("timeout_ms"); t != args.end() && t->is_number_unsigned()) {
    wait += t->get<uint64_t>() * time_dilation_;
  }
  Json request = {{"id", id}, {"op", op}};
  for (auto& [key, value] : args.items()) request[key] = std::move(value);
  if (auto sent = transport_->send_line(agent::serialize(request)); !sent) {
    return Unexpected(sent.error());
  }
  const uint64_t deadline = agent::monotonic_ms() + wait;
  for (;;) {
    const uint64_t now = agent::monotonic_ms();
    auto line = transport_->receive_line(deadline > now ? deadline - now : 0);
    if (!line) return Unexpected(line.error());
    Json reply = Json::parse(*line, nullptr, false);
    if (reply.is_discarded() || !reply.is_object()) {
      return protocol::control_error(ErrorCode::kEproto, "reply is not a JSON object: " + *line);
    }
    const auto rid = reply.find("id");
    if (rid != reply.end() && rid->is_number_unsigned() && rid->get<uint64_t>() < id) {
      continue;  // the late reply to a request that timed out
    }
    const auto ok = reply.find("ok");
    if (ok == reply.end() || !ok->is_boolean()) {
      return protocol::control_error(ErrorCode::kEproto, "reply without ok: " + *line);
    }
    if (!ok->get<bool>()) return Unexpected(error_from_reply(reply));
    if (rid == reply.end() || !rid->is_number_unsigned() || rid->get<uint64_t>() != id) {
      return protocol::control_error(ErrorCode::kEproto, "reply to another request: " + *line);
    }
    reply.erase("id");
    reply.erase("ok");
    return reply;
  }
}

protocol::DutClient typed_client(DutControl& control, std::optional<uint64_t> timeout_ms) {
  return protocol::DutClient(
      [&control, timeout_ms](protocol::Json request) -> Result<protocol::Json> {
        const std::string op = request["op"].get<std::string>();  // the client always sets it
        request.erase("op");
        auto reply = control.call(op, request, timeout_ms);
        if (!reply) return Unexpected(std::move(reply).error());
        return protocol::Json(*reply);
      });
}

Expected<std::string, std::string> read_token_file(const std::string& path) {
  std::ifstream in(path);
  std::string token;
  if (!in || !std::getline(in, token)) return Unexpected(path + ": cannot read a token from it");
  while (!token.empty() && (token.back() == '\r' || token.back() == ' ')) token.pop_back();
  return token;
}

}  // namespace mr::dut
