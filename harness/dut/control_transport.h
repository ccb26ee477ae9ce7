// File: control_transport.h
//
// How DutControl's request lines reach an agent and its reply lines come back: over TCP to
// a remote agent (tcp_transport.h), or straight into an in-process RequestDispatcher
// (in_process_transport.h). Both carry the same lines, so the harness cannot tell them
// apart above this interface.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "harness/protocol/control_error.h"

namespace mr::dut {

using agent::Result;
using protocol::ControlError;
using protocol::ErrorCode;

class ControlTransport {
 public:
  virtual ~ControlTransport() = default;
  // One request line, without the newline. EPROTO once the connection is closed.
  virtual Result<void> send_line(std::string_view line) = 0;
  // The next reply line: ETIMEDOUT when none came within timeout_ms, EPROTO when closed.
  virtual Result<std::string> receive_line(uint64_t timeout_ms) = 0;
  // "tcp://198.18.0.2:7000", "in-process reference"
  virtual std::string describe() const = 0;
};

}  // namespace mr::dut
