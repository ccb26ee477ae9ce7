// File: queued_link.h
//
// A Link whose receive side is a queue someone else fills: the reference backend receives
// from the real link (which may block) without holding its device lock, then pushes the
// frames here and lets its io::Node handle them under the lock without ever blocking.
// Sends go straight to the real link.
//
//   QueuedLink queued(real_link);
//   queued.push(std::move(frames));       // frames the data path received
//   node.poll(n, 0);                      // Node reads them from `queued`
#pragma once

#include <deque>
#include <span>
#include <string>

#include "reference/io/link.h"

namespace mr::agent {

class QueuedLink final : public io::Link {
 public:
  explicit QueuedLink(io::Link& real) : real_(real) {}

  void push(io::Frame frame) { queue_.push_back(std::move(frame)); }
  size_t queued() const { return queue_.size(); }

  size_t send_burst(std::span<const io::Frame> frames) override { return real_.send_burst(frames); }
  // Never waits: the queue is filled before Node::poll runs.
  size_t receive_burst(std::span<io::Frame> out, uint64_t /*timeout_ns*/) override {
    size_t n = 0;
    while (n < out.size() && !queue_.empty()) {
      out[n++] = std::move(queue_.front());
      queue_.pop_front();
    }
    return n;
  }
  std::string name() const override { return real_.name(); }

 private:
  io::Link& real_;
  std::deque<io::Frame> queue_;
};

}  // namespace mr::agent
