// File: canned_reply_transport.h
//
// A ControlTransport for tests that plays an agent answering every request with the same
// reply, given as JSON text ({"ok": false, "error": {...}}), with the request's id put in.
// So a test can feed DutControl, and whatever is above it, the replies of an agent that
// misbehaves or runs out of resources, which the reference agent never sends on demand.
//
//   DutControl control(std::make_unique<CannedReplyTransport>(
//       R"({"ok": false, "error": {"code": "ENOSPC", "message": "queue full"}})"));
//   auto r = control.call("post_recv");  // r.error().code == ErrorCode::kEnospc
#pragma once

#include <deque>
#include <string>
#include <string_view>
#include <utility>

#include "harness/agent/control_reply.h"
#include "harness/dut/control_transport.h"

namespace mr::dut {

class CannedReplyTransport final : public ControlTransport {
 public:
  explicit CannedReplyTransport(std::string reply) : reply_(std::move(reply)) {}

  Result<void> send_line(std::string_view line) override {
    const agent::Json request = agent::Json::parse(line, nullptr, false);
    agent::Json reply = agent::Json::parse(reply_, nullptr, false);
    if (reply.is_object()) {
      const auto id = request.find("id");
      reply["id"] = id != request.end() ? *id : agent::Json();
      replies_.push_back(agent::serialize(reply));
    } else {
      replies_.push_back(reply_);  // not an object: sent as it is
    }
    return {};
  }
  Result<std::string> receive_line(uint64_t /*timeout_ms*/) override {
    if (replies_.empty()) return protocol::control_error(ErrorCode::kEtimedout, "no reply pending");
    std::string line = std::move(replies_.front());
    replies_.pop_front();
    return line;
  }
  std::string describe() const override { return "canned replies"; }

 private:
  std::string reply_;
  std::deque<std::string> replies_;
};

}  // namespace mr::dut
