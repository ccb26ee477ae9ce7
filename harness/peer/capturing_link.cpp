#include "harness/peer/capturing_link.h"

#include <ctime>

namespace mr::peer {
namespace {

// The kernel stamps received frames with CLOCK_REALTIME: sent frames use the same clock.
uint64_t realtime_ns() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ULL + static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace

Expected<std::unique_ptr<CapturingLink>, std::string> CapturingLink::create(
    io::Link& inner, const std::string& path) {
  auto writer = io::PcapngWriter::create(path, "metaroce peer (issue #9)");
  if (!writer) return Unexpected(writer.error());
  return std::unique_ptr<CapturingLink>(new CapturingLink(inner, std::move(*writer)));
}

void CapturingLink::record(const io::Frame& frame, uint64_t timestamp_ns, const char* comment) {
  std::lock_guard lock(mutex_);
  record_locked(frame, timestamp_ns, comment);
}

void CapturingLink::record_locked(const io::Frame& frame, uint64_t timestamp_ns,
                                  const char* comment) {
  if (!writer_) return;
  ++frames_;
  if (auto done = writer_->write(frame.bytes, timestamp_ns, comment); !done && error_.empty()) {
    error_ = done.error();
  }
}

size_t CapturingLink::send_burst(std::span<const io::Frame> frames) {
  // Sent and recorded under the lock, stamped before sending: the receive path records a
  // reply only after its request (a READ response must not precede its READ in the file).
  std::lock_guard lock(mutex_);
  const uint64_t now = realtime_ns();
  const size_t sent = inner_.send_burst(frames);
  for (size_t i = 0; i < sent; ++i) record_locked(frames[i], now, "reference peer");
  return sent;
}

size_t CapturingLink::receive_burst(std::span<io::Frame> out, uint64_t timeout_ns) {
  const size_t n = inner_.receive_burst(out, timeout_ns);
  for (size_t i = 0; i < n; ++i) {
    record(out[i], out[i].timestamp_ns != 0 ? out[i].timestamp_ns : realtime_ns(), "tool");
  }
  return n;
}

Expected<void, std::string> CapturingLink::close() {
  std::lock_guard lock(mutex_);
  if (writer_) {
    auto closed = writer_->close();
    writer_.reset();
    if (!closed && error_.empty()) error_ = closed.error();
  }
  if (!error_.empty()) return Unexpected(error_);
  return {};
}

uint64_t CapturingLink::frames() const {
  std::lock_guard lock(mutex_);
  return frames_;
}

}  // namespace mr::peer
