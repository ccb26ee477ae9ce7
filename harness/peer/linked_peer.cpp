#include "harness/peer/linked_peer.h"

#include <algorithm>
#include <chrono>
#include <utility>

namespace mr::peer {
namespace {

constexpr size_t kBurst = 64;

io::NodeConfig node_config(const PeerIdentity& id) {
  io::NodeConfig c;
  c.mac = id.mac;
  c.ipv4 = id.ip;
  if (id.ip6) c.ipv6_global.push_back(*id.ip6);
  return c;
}

}  // namespace

LinkedPeer::LinkedPeer(io::Link& link, const PeerIdentity& identity, LinkedPeerOptions options)
    : link_(link),
      identity_(identity),
      options_(options),
      burst_(kBurst),
      peer_(identity_),
      queued_(link),
      node_(queued_, clock_, node_config(identity_)) {
  node_.set_roce_handler([this](std::span<const uint8_t> frame, uint64_t /*timestamp*/) {
    peer_.receive(frame, clock_.now_ns());
  });
  // Started last, so the pump's first step finds the handler in place.
  thread_ = std::jthread([this](const std::stop_token& stop) { pump(stop); });
}

void LinkedPeer::pump(const std::stop_token& stop) {
  while (!stop.stop_requested()) step();
}

void LinkedPeer::step() {
  uint64_t wait = options_.max_wait_ns;
  {
    std::lock_guard lock(mutex_);
    const uint64_t now = clock_.now_ns();
    if (auto due = peer_.next_deadline()) wait = std::min(wait, *due > now ? *due - now : 0);
    if (peer_.has_work()) wait = 0;
  }
  const size_t n = link_.receive_burst(burst_, wait);
  {
    std::lock_guard lock(mutex_);
    for (size_t i = 0; i < n; ++i) queued_.push(std::move(burst_[i]));
    node_.poll(n, 0);
    flush_locked();
  }
  progress_.notify_all();
}

void LinkedPeer::flush_locked() {
  peer_.advance(clock_.now_ns());
  std::vector<std::vector<uint8_t>> frames = peer_.take_outbox();
  node_.send_burst(frames);
  peer_.recycle(frames);  // the next frames are built in these buffers
}

std::vector<transport::Completion> LinkedPeer::poll(uint32_t qpn, size_t max, uint32_t timeout_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  std::unique_lock lock(mutex_);
  for (;;) {
    auto got = peer_.poll(qpn, max);
    if (!got.empty()) return got;
    if (progress_.wait_until(lock, deadline) == std::cv_status::timeout) {
      return peer_.poll(qpn, max);
    }
  }
}

Expected<std::vector<transport::Completion>, std::string> all_succeeded(
    std::vector<transport::Completion> completions) {
  for (const auto& c : completions) {
    if (c.status != transport::WcStatus::kSuccess) {
      return Unexpected("completion of wr_id " + std::to_string(c.wr_id) + " (" +
                        std::string(transport::to_string(c.opcode)) +
                        "): " + std::string(transport::to_string(c.status)));
    }
  }
  return completions;
}

}  // namespace mr::peer
