// File: in_process_transport.h
//
// A ControlTransport without a socket: each request line goes straight to a
// RequestDispatcher and its reply is queued for receive_line. The embedded reference DUT
// uses it, so the harness drives it through exactly the code a remote agent runs.
#pragma once

#include <deque>
#include <string>

#include "harness/agent/request_dispatcher.h"
#include "harness/dut/control_transport.h"

namespace mr::dut {

class InProcessTransport final : public ControlTransport {
 public:
  explicit InProcessTransport(agent::RequestDispatcher& dispatcher) : dispatcher_(dispatcher) {}

  Result<void> send_line(std::string_view line) override {
    if (closed_) return protocol::control_error(ErrorCode::kEproto, "the session ended (bye)");
    agent::DispatchResult r = dispatcher_.handle_line(line);
    replies_.push_back(std::move(r.reply));
    closed_ = r.close;
    return {};
  }
  // Never waits: the reply is there as soon as send_line returned.
  Result<std::string> receive_line(uint64_t /*timeout_ms*/) override {
    if (replies_.empty()) {
      return protocol::control_error(closed_ ? ErrorCode::kEproto : ErrorCode::kEtimedout,
                                     closed_ ? "the session ended (bye)" : "no reply pending");
    }
    std::string line = std::move(replies_.front());
    replies_.pop_front();
    return line;
  }
  std::string describe() const override { return "in-process"; }
  // A session can start again after bye (the in-process DUT is never disconnected).
  void reopen() { closed_ = false; }

 private:
  agent::RequestDispatcher& dispatcher_;
  std::deque<std::string> replies_;
  bool closed_ = false;
};

}  // namespace mr::dut
