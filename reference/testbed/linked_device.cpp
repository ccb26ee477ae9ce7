#include "reference/testbed/linked_device.h"

#include <algorithm>
#include <chrono>
#include <span>

namespace mr::testbed {

Expected<std::unique_ptr<LinkedDevice>, std::string> LinkedDevice::create(
    transport::DeviceConfig config, std::vector<io::Link*> ports, uint64_t max_wait_ns) {
  if (ports.size() != config.planes)
    return Unexpected("ports: " + std::to_string(ports.size()) + " links for " +
                      std::to_string(config.planes) + " planes");
  for (size_t p = 0; p < ports.size(); ++p) {
    if (ports[p] == nullptr) return Unexpected("ports[" + std::to_string(p) + "]: none");
  }
  return std::unique_ptr<LinkedDevice>(  // NOLINT: the constructor is private
      new LinkedDevice(std::move(config), std::move(ports), max_wait_ns));
}

LinkedDevice::LinkedDevice(transport::DeviceConfig config, std::vector<io::Link*> ports,
                           uint64_t max_wait_ns)
    : device_(std::move(config)), ports_(std::move(ports)), max_wait_ns_(max_wait_ns) {}

void LinkedDevice::start() {
  if (thread_.joinable()) return;
  thread_ = std::jthread([this](const std::stop_token& stop) { pump(stop); });
}

void LinkedDevice::stop() {
  if (!thread_.joinable()) return;
  thread_.request_stop();
  thread_.join();
}

// What the ports received, to the device. The links are read outside the lock.
bool LinkedDevice::receive() {
  std::vector<io::Frame> in(32);
  bool any = false;
  for (io::Link* port : ports_) {
    const size_t n = port->receive_burst(in, 0);
    if (n == 0) continue;
    any = true;
    std::lock_guard lock(mutex_);
    const uint64_t now = clock_.now_ns();
    for (size_t i = 0; i < n; ++i) device_.receive(in[i].bytes, now);
  }
  return any;
}

// The device's timers and requesters, and what they sent, out of each frame's plane.
bool LinkedDevice::send() {
  std::vector<uint8_t> planes;
  std::vector<std::vector<uint8_t>> frames;
  {
    std::lock_guard lock(mutex_);
    device_.advance(clock_.now_ns());
    frames = device_.take_outbox(planes);
  }
  for (size_t i = 0; i < frames.size(); ++i) {
    const io::Frame f{std::move(frames[i]), clock_.now_ns()};
    if (ports_[planes[i]]->send_burst(std::span(&f, 1)) == 0)
      frames_refused_.fetch_add(1, std::memory_order_relaxed);
  }
  return !frames.empty();
}

void LinkedDevice::pump(const std::stop_token& stop) {
  while (!stop.stop_requested()) {
    const bool received = receive();
    const bool sent = send();
    if (received || sent) continue;
    uint64_t wait = max_wait_ns_;
    {
      std::lock_guard lock(mutex_);
      const uint64_t now = clock_.now_ns();
      if (auto due = device_.next_deadline()) wait = std::min(wait, *due > now ? *due - now : 0);
    }
    if (wait > 0) std::this_thread::sleep_for(std::chrono::nanoseconds(wait));
  }
}

}  // namespace mr::testbed
