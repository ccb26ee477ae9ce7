#include "harness/agent/control_session.h"

#include "harness/agent/json_reader.h"

namespace mr::agent {
namespace {

std::string refusal(std::optional<uint64_t> id, const ControlError& error) {
  return serialize(error_reply(id, error));
}

bool names_op(const nlohmann::json& message, std::string_view op) {
  if (!message.is_object()) return false;
  const auto it = message.find("op");
  return it != message.end() && it->is_string() && it->get_ref<const std::string&>() == op;
}

// The request's id when it has a readable one (and only one).
std::optional<uint64_t> readable_id(const JsonLine& line) {
  if (line.duplicate == "id" || !line.value.is_object()) return std::nullopt;
  const auto it = line.value.find("id");
  if (it == line.value.end()) return std::nullopt;
  auto id = read_unsigned(*it, "id");
  if (!id) return std::nullopt;
  return *id;
}

}  // namespace

bool constant_time_equal(std::string_view a, std::string_view b) {
  if (b.empty()) return false;
  unsigned diff = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < a.size(); ++i) {
    diff |= static_cast<unsigned char>(a[i]) ^ static_cast<unsigned char>(b[i % b.size()]);
  }
  return diff == 0;
}

bool ControlSession::has_right_token(const nlohmann::json& message) const {
  if (!names_op(message, "hello")) return false;
  const auto token = message.find("token");
  if (token == message.end() || !token->is_string()) return false;
  return constant_time_equal(token->get_ref<const std::string&>(), token_);
}

SessionStep ControlSession::hello(std::string_view line) {
  auto json = parse_json_line(line);
  // Not a hello with the right token: not a word, not even that an agent listens.
  if (!json || !has_right_token(json->value)) return {std::nullopt, true};
  auto request = parse_request(*json);
  if (!request) return {refusal(request.error().id, request.error().error), true};
  DispatchResult result = dispatcher_.handle(*request);  // checks the protocol version
  if (result.close) return {std::move(result.reply), true};
  authenticated_ = true;
  return {std::move(result.reply), false};
}

SessionStep ControlSession::handle_line(std::string_view line) {
  if (!authenticated_) return hello(line);
  auto json = parse_json_line(line);
  if (!json) return {refusal(std::nullopt, json.error()), false};
  if (names_op(json->value, "hello")) {
    return {refusal(readable_id(*json),
                    {ErrorCode::kEproto, "hello is the first line of a session only", "op"}),
            false};
  }
  auto request = parse_request(*json);
  if (!request) return {refusal(request.error().id, request.error().error), false};
  DispatchResult result = dispatcher_.handle(*request);
  return {std::move(result.reply), result.close};
}

SessionStep ControlSession::too_long_line() const {
  if (!authenticated_) return {std::nullopt, true};
  return {refusal(std::nullopt, {ErrorCode::kEproto, "line longer than 1 MiB; closing", ""}), true};
}

}  // namespace mr::agent
