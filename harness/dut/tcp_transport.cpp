#include "harness/dut/tcp_transport.h"

#include "harness/agent/dut_types.h"

namespace mr::dut {
namespace {

constexpr uint64_t kSendTimeoutMs = 10'000;

}  // namespace

Result<std::unique_ptr<TcpTransport>> TcpTransport::connect(const std::string& host, uint16_t port,
                                                            uint64_t timeout_ms) {
  auto fd = agent::connect_tcp(host, port, timeout_ms);
  if (!fd) return protocol::control_error(ErrorCode::kEtimedout, fd.error());
  return std::unique_ptr<TcpTransport>(
      new TcpTransport(std::move(*fd), "tcp://" + host + ":" + std::to_string(port)));
}

Result<void> TcpTransport::send_line(std::string_view line) {
  if (closed_) return protocol::control_error(ErrorCode::kEproto, description_ + ": closed");
  std::string data(line);
  data += '\n';
  if (auto sent = agent::send_all(fd_.get(), data, kSendTimeoutMs); !sent) {
    closed_ = true;
    return protocol::control_error(ErrorCode::kEproto, description_ + ": " + sent.error());
  }
  return {};
}

Result<std::string> TcpTransport::receive_line(uint64_t timeout_ms) {
  if (closed_) return protocol::control_error(ErrorCode::kEproto, description_ + ": closed");
  std::string line;
  using Status = agent::LineReader::Status;
  switch (reader_.read_line(fd_.get(), timeout_ms, line)) {
    case Status::kLine:
      return line;
    case Status::kTimeout:
      return protocol::control_error(ErrorCode::kEtimedout, description_ + ": no reply within " +
                                                                std::to_string(timeout_ms) + " ms");
    case Status::kTooLong:
      closed_ = true;
      return protocol::control_error(ErrorCode::kEproto, description_ + ": reply line too long");
    case Status::kClosed:
    case Status::kError:
      break;
  }
  closed_ = true;
  return protocol::control_error(ErrorCode::kEproto, description_ + ": connection closed");
}

}  // namespace mr::dut
