// File: linked_peer.h
//
// The reference peer (reference_peer.h) on an io::Link, on the real clock (issue #19): the
// tools' peer (perftest, ibv_rc_pingpong) and the reference side of the interop matrix. A
// pump thread receives bursts from the link, hands them to an io::Node (which answers ARP,
// neighbour discovery and ping for the identity's addresses, as the agent's reference
// backend does, and passes RoCE frames to the peer), runs the peer's timers and sends its
// outbox. One mutex guards the peer; the link is read outside it, so a call never waits
// behind a blocked receive. Every wait is bounded; the destructor stops and joins the pump.
//
//   LinkedPeer peer(link, {.mac = mac, .ip = ip, .seed = 7});
//   auto qp = peer.create_qp({.mr_length = 65536});
//   peer.connect(qp->qpn, path);  peer.post_send(qp->qpn, wr);
//   auto done = peer.poll(qp->qpn, 16, 1000);   // empty after 1 s without a completion
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "harness/agent/queued_link.h"
#include "harness/peer/reference_peer.h"
#include "reference/error/expected.h"
#include "reference/io/clock.h"
#include "reference/io/link.h"
#include "reference/io/node.h"

namespace mr::peer {

struct LinkedPeerOptions {
  // The pump's longest wait on the link per step: how soon it sees frames and a stop.
  uint64_t max_wait_ns = 200'000;
};

class LinkedPeer {
 public:
  // `link` must outlive the peer. The pump starts here.
  LinkedPeer(io::Link& link, const PeerIdentity& identity, LinkedPeerOptions options = {});
  LinkedPeer(const LinkedPeer&) = delete;
  LinkedPeer& operator=(const LinkedPeer&) = delete;
  ~LinkedPeer() = default;  // thread_ goes first: the pump is joined before the rest

  const PeerIdentity& identity() const { return identity_; }

  // Runs `op(ReferencePeer&)` under the lock, then sends what it made the peer transmit.
  template <class Op>
  std::invoke_result_t<Op, ReferencePeer&> with_peer(Op&& op) {
    std::lock_guard lock(mutex_);
    if constexpr (std::is_void_v<std::invoke_result_t<Op, ReferencePeer&>>) {
      op(peer_);
      flush_locked();
    } else {
      auto result = op(peer_);
      flush_locked();
      return result;
    }
  }

  Expected<PeerQpInfo, std::string> create_qp(const PeerQpSpec& spec) {
    return with_peer([&](ReferencePeer& p) { return p.create_qp(spec); });
  }
  Expected<void, std::string> connect(uint32_t qpn, const PeerPath& path) {
    return with_peer([&](ReferencePeer& p) { return p.connect(qpn, path); });
  }
  Expected<void, std::string> destroy_qp(uint32_t qpn) {
    return with_peer([&](ReferencePeer& p) { return p.destroy_qp(qpn); });
  }
  Expected<void, std::string> post_send(uint32_t qpn, const transport::SendWr& wr) {
    return with_peer([&](ReferencePeer& p) { return p.post_send(qpn, wr); });
  }
  Expected<void, std::string> post_recv(uint32_t qpn, const transport::RecvWr& wr) {
    return with_peer([&](ReferencePeer& p) { return p.post_recv(qpn, wr); });
  }
  Expected<std::vector<uint8_t>, std::string> read(uint32_t qpn, uint64_t offset, uint64_t length) {
    return with_peer([&](ReferencePeer& p) { return p.read(qpn, offset, length); });
  }
  Expected<void, std::string> write(uint32_t qpn, uint64_t offset, std::span<const uint8_t> data) {
    return with_peer([&](ReferencePeer& p) { return p.write(qpn, offset, data); });
  }

  // At most `max` completions of the QP's CQ; waits at most timeout_ms for the first
  // (the pump signals after every step). Empty when none came in time.
  std::vector<transport::Completion> poll(uint32_t qpn, size_t max, uint32_t timeout_ms);

 private:
  void pump(const std::stop_token& stop);
  void step();
  void flush_locked();  // timers and requesters, then the outbox onto the link

  io::Link& link_;
  const PeerIdentity identity_;
  const LinkedPeerOptions options_;
  io::SystemClock clock_;
  std::vector<io::Frame> burst_;  // the pump's only

  std::mutex mutex_;  // peer_, node_, queued_
  std::condition_variable progress_;
  ReferencePeer peer_;
  agent::QueuedLink queued_;  // what the pump received, for the node to read under the lock
  io::Node node_;
  std::jthread thread_;  // last: started once everything above exists, joined first
};

// The poll rule of the tools' sessions: every completion must be a success, else the error
// names the work request, its opcode and status.
Expected<std::vector<transport::Completion>, std::string> all_succeeded(
    std::vector<transport::Completion> completions);

}  // namespace mr::peer
