// File: linked_device.h
//
// A reference Device on real ports, on the real clock: one Link per plane (its veth on the
// real-time fabric, fabric_namespaces.h), and a pump thread that hands what each link
// received to the device, runs its timers and requesters, and sends each frame it made out
// of the link of the plane it chose (Device::take_outbox(planes)). The multi-plane
// counterpart of LinkedPeer, for extension QPs between network namespaces.
//
// Set up its QPs through device() before start(); afterwards only through with_device(),
// under the lock the pump takes. Every wait is bounded; the destructor stops the pump.
//
//   auto a = LinkedDevice::create(config, {&plane0, &plane1}).value();
//   auto c = connect_rc({.device = a->device(), ...}, {.device = b->device(), ...}, {});
//   a->start();  b->start();
//   a->with_device([&](transport::Device& d) { return d.post_send(c.qp_a, wr); });
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "reference/error/expected.h"
#include "reference/io/clock.h"
#include "reference/io/link.h"
#include "reference/transport/device.h"

namespace mr::testbed {

class LinkedDevice {
 public:
  // ports[p] is the device's port on plane p, one for each of config.planes (an error names
  // both counts otherwise); they must outlive it.
  static Expected<std::unique_ptr<LinkedDevice>, std::string> create(transport::DeviceConfig config,
                                                                     std::vector<io::Link*> ports,
                                                                     uint64_t max_wait_ns = 20'000);
  LinkedDevice(const LinkedDevice&) = delete;
  LinkedDevice& operator=(const LinkedDevice&) = delete;
  ~LinkedDevice() { stop(); }

  // Before start() only.
  transport::Device& device() { return device_; }
  void start();
  void stop();

  template <class Op>
  std::invoke_result_t<Op, transport::Device&> with_device(Op&& op) {
    std::lock_guard lock(mutex_);
    return op(device_);
  }
  uint64_t now_ns() const { return clock_.now_ns(); }
  // Frames a port did not take (its ring was full): lost, as a NIC's would be.
  uint64_t frames_refused() const { return frames_refused_.load(std::memory_order_relaxed); }

 private:
  LinkedDevice(transport::DeviceConfig config, std::vector<io::Link*> ports, uint64_t max_wait_ns);
  void pump(const std::stop_token& stop);
  bool receive();
  bool send();

  io::SystemClock clock_;
  std::mutex mutex_;
  transport::Device device_;
  std::vector<io::Link*> ports_;
  uint64_t max_wait_ns_;
  std::atomic<uint64_t> frames_refused_{0};
  std::jthread thread_;  // last: joined before the rest goes
};

}  // namespace mr::testbed
