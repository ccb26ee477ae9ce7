// File: tcp_transport.h
//
// A ControlTransport to a remote agent over TCP: one connection, lines both ways, every
// wait bounded. connect() only opens the socket; DutControl sends the hello.
//
//   auto t = TcpTransport::connect("198.18.0.2", 7000, 5'000);
#pragma once

#include <memory>
#include <string>

#include "harness/agent/dut_types.h"
#include "harness/agent/socket_io.h"
#include "harness/dut/control_transport.h"

namespace mr::dut {

class TcpTransport final : public ControlTransport {
 public:
  static Result<std::unique_ptr<TcpTransport>> connect(const std::string& host, uint16_t port,
                                                       uint64_t timeout_ms);

  Result<void> send_line(std::string_view line) override;
  Result<std::string> receive_line(uint64_t timeout_ms) override;
  std::string describe() const override { return description_; }

 private:
  TcpTransport(agent::UniqueFd fd, std::string description)
      : fd_(std::move(fd)), description_(std::move(description)) {}

  agent::UniqueFd fd_;
  agent::LineReader reader_{4 * protocol::kMaxLineBytes};
  std::string description_;
  bool closed_ = false;
};

}  // namespace mr::dut
