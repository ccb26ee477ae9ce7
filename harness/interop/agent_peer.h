// File: agent_peer.h
//
// The DUT's side of an interop cell: a device behind the DUT control protocol
// (docs/dut-control-protocol.md), here the verbs agent on Linux rxe in the QEMU guest.
// Memory is read and written with read_mem/write_mem in pieces of at most 256 KiB (the
// protocol's limit per request). The verbs agent picks the source GID itself (the first
// RoCE v2 GID holding an IPv4 address: rxe's index 1) and the kernel the destination MAC.
//
//   AgentPeer rxe(control, "rxe");
//   rxe.setup(4096);  rxe.connect({.remote_ip = 198.18.0.1, ...});
#pragma once

#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "harness/dut/dut_control.h"
#include "harness/interop/peer.h"

namespace mr::interop {

class AgentPeer final : public Peer {
 public:
  // `control` must outlive the peer; `name` prefixes its errors ("rxe modify_qp RTR: ...").
  AgentPeer(dut::DutControl& control, std::string name);

  Result<void> setup(uint64_t buffer_bytes) override;
  uint32_t qpn() const override { return qpn_.value_or(0); }
  const PeerBuffer& buffer() const override { return buffer_; }
  Result<void> connect(const ConnectArgs& args) override;
  Result<void> post_send(const transport::SendWr& wr) override;
  Result<void> post_recv(uint64_t wr_id, uint64_t offset, uint32_t length) override;
  Result<std::vector<CompletionRecord>> poll(uint32_t timeout_ms) override;
  Result<std::vector<uint8_t>> read(uint64_t offset, uint64_t length) override;
  Result<void> write(uint64_t offset, const std::vector<uint8_t>& bytes) override;
  Result<void> teardown() override;

 private:
  // The client's reply, its error prefixed with the peer's name and the step
  // ("rxe modify_qp RTR: EINVAL ...").
  template <class T>
  Result<T> step(const char* what, protocol::Reply<T> reply) {
    if (!reply) return Unexpected(name_ + " " + what + ": " + reply.error().to_string());
    if constexpr (std::is_void_v<T>) {
      return {};
    } else {
      return std::move(*reply);
    }
  }

  protocol::DutClient client_;
  std::string name_;
  std::optional<uint32_t> pd_;
  std::optional<uint32_t> cq_;
  std::optional<uint32_t> qpn_;
  bool has_mr_ = false;
  PeerBuffer buffer_;
};

}  // namespace mr::interop
