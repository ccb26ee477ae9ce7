// File: control_reply.h
//
// Replies of the DUT control protocol as JSON: the envelope ({"id", "ok", ...} and the
// error object) and the JSON form of each typed result. Field names are the request's
// (query_qp's attrs read back as modify_qp takes them), status and opcode names those of
// work_request.cpp (ibv names).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "harness/agent/control_vocabulary.h"
#include "harness/agent/dut_types.h"

namespace mr::agent {

using Json = nlohmann::ordered_json;

// {"id": id, "ok": true} followed by the members of `body` (an object).
Json ok_reply(uint64_t id, Json body = Json::object());
// {"id": id or null, "ok": false, "error": {"code", "message", "field"?}}.
Json error_reply(std::optional<uint64_t> id, const ControlError& error);
// One reply line, without the newline. Invalid UTF-8 cannot escape: it is replaced.
std::string serialize(const Json& reply);

Json to_json(const Capabilities& c);
Json to_json(const MrResult& mr);
Json to_json(const transport::QpAttributes& a);
Json to_json(const transport::Completion& c);
Json to_json(const std::vector<Counter>& counters);
std::string to_hex(const std::vector<uint8_t>& bytes);
std::vector<std::string> access_names(uint32_t access);

}  // namespace mr::agent
