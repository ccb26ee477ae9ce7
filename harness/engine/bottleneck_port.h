// File: bottleneck_port.h
//
// The reference bottleneck of spec section 26.4 in the engine's chain (`bottleneck on ...`,
// docs/test-language.md): a DutPort between the tester's QPs and the fault layer whose
// BottleneckQueue serves every frame the DUT sends, or one queue per plane serves the Ext
// frames whose MXH names that plane (a multi-plane fabric with a bottleneck in each plane:
// MR-PF-06). Frames of a plane without a queue, and the DUT's ACKs then, pass at once. The
// tester -> DUT direction passes untouched. With no queue it passes everything through.
//
// It is also where goodput is measured, on the tester's side of the wire: every frame that
// leaves while a queue is on is logged with the bytes of payload it delivers for the first
// time (by destination QP and PSN: a retransmission of a delivered PSN adds nothing).
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <unordered_set>
#include <vector>

#include "harness/engine/bottleneck_queue.h"
#include "harness/engine/dut_port.h"

namespace mr::engine {

class BottleneckPort final : public ForwardingPort {
 public:
  // Payload delivered for the first time, as it reached the tester.
  struct Delivery {
    uint64_t t_ns = 0;
    uint32_t dqpn = 0;  // the tester QP it was sent to
    uint32_t bytes = 0;
  };

  explicit BottleneckPort(DutPort& inner) : ForwardingPort(inner) {}

  // Starts a queue for every frame (no plane) or for one plane's, for the frames the DUT
  // sends from now on; a queue for every frame and per-plane queues exclude each other, and a
  // queue that holds frames is not replaced (errors that say so).
  Expected<void, std::string> serve(std::optional<uint8_t> plane, BottleneckQueue::Config config);
  bool active() const { return all_ || !planes_.empty(); }
  const BottleneckQueue* queue(std::optional<uint8_t> plane) const;
  const std::map<uint8_t, BottleneckQueue>& plane_queues() const { return planes_; }

  const std::vector<Delivery>& deliveries() const { return deliveries_; }
  // When each tester QP's stream started: the first frame with payload that entered a queue.
  const std::map<uint32_t, uint64_t>& stream_starts() const { return starts_; }

  std::optional<DutFrame> receive(uint64_t deadline_ns) override;
  Expected<void, std::string> reset() override;

 private:
  struct Keys {
    uint32_t dqpn = 0;
    uint32_t psn = 0;
    uint32_t payload = 0;
    std::optional<uint8_t> plane;
  };
  static std::optional<Keys> keys_of(std::span<const uint8_t> frame);
  // Takes a frame the DUT sent: into its queue, or ready at once.
  void admit(DutFrame frame);
  // The queue (or the ready list) whose head reaches the tester first, and when.
  BottleneckQueue* earliest(uint64_t& out_ns);
  void log_delivery(std::span<const uint8_t> frame, uint64_t t_ns);

  uint64_t since_ns_ = 0;  // frames that arrived before the latest `serve` pass at once
  std::optional<BottleneckQueue> all_;
  std::map<uint8_t, BottleneckQueue> planes_;
  std::deque<DutFrame> ready_;  // frames no queue takes, in arrival order
  std::vector<Delivery> deliveries_;
  std::map<uint32_t, uint64_t> starts_;
  std::unordered_set<uint64_t> delivered_;  // dqpn << 24 | psn
};

}  // namespace mr::engine
