// File: dut_control.h
//
// The harness's side of the DUT control protocol (docs/dut-control-protocol.md): send one
// request, wait (bounded) for its reply, and return the reply's body or the agent's error
// as a value. One interface for the embedded reference DUT and for a remote agent; only the
// ControlTransport differs.
//
//   auto dut = DutControl::connect("198.18.0.2", 7000, token);        // TCP + hello
//   auto pd = dut->call("create_pd");                                 // {"id":..,"ok":true,"pd":1}
//   auto mr = dut->call("reg_mr", {{"pd", (*pd)["pd"]}, {"length", 4096},
//                                  {"access", {"LOCAL_WRITE", "REMOTE_WRITE"}}});
//   if (!mr) log(mr.error().to_string());                             // "EINVAL access[0]: ..."
//
// Replies to requests that timed out are recognised by their id and skipped.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "harness/agent/control_reply.h"
#include "harness/dut/control_transport.h"
#include "harness/protocol/dut_client.h"

namespace mr::dut {

using Json = agent::Json;

class DutControl {
 public:
  static constexpr uint64_t kDefaultTimeoutMs = 15'000;

  explicit DutControl(std::unique_ptr<ControlTransport> transport,
                      uint64_t timeout_ms = kDefaultTimeoutMs);

  // A TCP connection to a remote agent, then hello with the token.
  static Result<DutControl> connect(const std::string& host, uint16_t port,
                                    const std::string& token, uint64_t timeout_ms = 5'000);

  // hello: must be the first request on a TCP connection. Returns its reply.
  Result<void> hello(const std::string& token, const std::string& client = "metaroce-harness");
  // Any op: `args` are the request's members besides id and op. The wait is timeout_ms
  // (the default given at construction) plus the request's own timeout_ms when it has one.
  // Returns the reply without "id" and "ok", or the agent's error.
  Result<Json> call(std::string_view op, Json args = Json::object(),
                    std::optional<uint64_t> timeout_ms = {});

  // The agent's clock runs `factor` times slower than real time (capabilities
  // time_dilation): a request's own timeout_ms is its time, so the wait for it is longer.
  void set_time_dilation(uint32_t factor) { time_dilation_ = factor == 0 ? 1 : factor; }

  ControlTransport& transport() { return *transport_; }
  uint64_t requests_sent() const { return next_id_ - 1; }

 private:
  std::unique_ptr<ControlTransport> transport_;
  uint64_t timeout_ms_;
  uint32_t time_dilation_ = 1;
  uint64_t next_id_ = 1;
};

// The token in the first line of `path` (a trailing CR or spaces dropped); an error naming
// the file when it cannot be read. Whether an empty token is acceptable is the caller's call.
Expected<std::string, std::string> read_token_file(const std::string& path);

// The typed client (harness/protocol) over `control`, which must outlive it.
protocol::DutClient typed_client(DutControl& control, std::optional<uint64_t> timeout_ms = {});

// The ControlError an error reply carries ({"code", "message", "field"}); EPROTO when the
// reply is not a well-formed protocol reply or its code is not one of the protocol's (the
// message then names that code).
ControlError error_from_reply(const Json& reply);

}  // namespace mr::dut
