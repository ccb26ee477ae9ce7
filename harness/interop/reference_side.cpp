#include "harness/interop/reference_side.h"

#include <algorithm>
#include <utility>

#include "harness/protocol/protocol_limits.h"

namespace mr::interop {
namespace {

constexpr uint32_t kCqDepth = 64;
constexpr uint8_t kQueueDepth = 16;

// Errors say which side failed: the cell's messages mix both.
template <class T>
Result<T> named(Expected<T, std::string> r) {
  if (!r) return Unexpected("reference " + r.error());
  return r;
}

}  // namespace

Result<void> ReferenceSide::setup(uint64_t buffer_bytes) {
  // Zeroed, as the DUT's fresh buffer is: the cell writes its own pattern and guards.
  auto qp = named(peer_.create_qp({.qpn = std::nullopt,
                                   .mr_length = buffer_bytes,
                                   .pattern_seed = std::nullopt,
                                   .cq_depth = kCqDepth,
                                   .max_send_wr = kQueueDepth,
                                   .max_recv_wr = kQueueDepth}));
  if (!qp) return Unexpected(qp.error());
  qp_ = *qp;
  buffer_ = {.lkey = qp_.lkey, .rkey = qp_.rkey, .va = qp_.va, .length = qp_.length};
  return {};
}

Result<void> ReferenceSide::connect(const ConnectArgs& a) {
  // The peer's MAC is known: no ARP on an impaired link.
  return named(peer_.connect(
      qp_.qpn, {.av = peer::address_vector(peer_.identity(), a.remote_mac, a.remote_ip),
                .dest_qpn = a.remote_qpn,
                .rq_psn = a.remote_psn,
                .sq_psn = a.local_psn,
                .mtu = a.mtu,
                .timeout = a.timeout,
                .retry_cnt = a.retry_cnt,
                .rnr_retry = a.rnr_retry,
                .max_rd_atomic = kQueueDepth,
                .max_dest_rd_atomic = kQueueDepth}));
}

Result<void> ReferenceSide::post_send(const transport::SendWr& wr) {
  return named(peer_.post_send(qp_.qpn, wr));
}

Result<void> ReferenceSide::post_recv(uint64_t wr_id, uint64_t offset, uint32_t length) {
  transport::RecvWr wr;
  wr.wr_id = wr_id;
  if (length > 0)
    wr.sg_list.push_back({.addr = buffer_.va + offset, .length = length, .lkey = buffer_.lkey});
  return named(peer_.post_recv(qp_.qpn, wr));
}

Result<std::vector<CompletionRecord>> ReferenceSide::poll(uint32_t timeout_ms) {
  std::vector<CompletionRecord> out;
  for (const auto& c : peer_.poll(qp_.qpn, 16, std::min(timeout_ms, protocol::kMaxPollTimeoutMs))) {
    out.push_back({.wr_id = c.wr_id,
                   .status = std::string(transport::to_string(c.status)),
                   .opcode = std::string(transport::to_string(c.opcode)),
                   .byte_len = c.byte_len});
  }
  return out;
}

Result<std::vector<uint8_t>> ReferenceSide::read(uint64_t offset, uint64_t length) {
  return named(peer_.read(qp_.qpn, offset, length));
}

Result<void> ReferenceSide::write(uint64_t offset, const std::vector<uint8_t>& bytes) {
  return named(peer_.write(qp_.qpn, offset, bytes));
}

Result<void> ReferenceSide::teardown() {
  // Safe after a partial setup: no QP, nothing to destroy; the rest goes with the device.
  if (!peer_.with_peer([&](peer::ReferencePeer& p) { return p.owns(qp_.qpn); })) return {};
  return named(peer_.destroy_qp(qp_.qpn));
}

}  // namespace mr::interop
