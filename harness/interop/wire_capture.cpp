#include "harness/interop/wire_capture.h"

#include <ctime>

namespace mr::interop {
namespace {

// libpcap stamps received frames with CLOCK_REALTIME: sent frames use the same clock.
uint64_t realtime_ns() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ULL + static_cast<uint64_t>(ts.tv_nsec);
}

const std::string kReference = "reference";

// A libpcap link stamps frames with CLOCK_REALTIME; a memory link (tests) with its own
// clock, whose small values would not compare with the sent frames' stamps.
constexpr uint64_t kYear2001Ns = 978'307'200ULL * 1'000'000'000ULL;

}  // namespace

WireCapture::WireCapture(io::Link& inner, std::string dut_name)
    : inner_(inner), dut_name_(std::move(dut_name)) {}

Expected<void, std::string> WireCapture::start(const std::string& path) {
  if (auto stopped = stop(); !stopped) return Unexpected(stopped.error());
  auto writer = io::PcapngWriter::create(path, "metaroce interop (issue #7)");
  if (!writer) return Unexpected(writer.error());
  std::lock_guard lock(mutex_);
  writer_.emplace(std::move(*writer));
  error_.clear();
  frames_ = 0;
  return {};
}

Expected<uint64_t, std::string> WireCapture::stop() {
  std::lock_guard lock(mutex_);
  if (writer_) {
    auto closed = writer_->close();
    writer_.reset();
    if (!closed && error_.empty()) error_ = closed.error();
  }
  if (!error_.empty()) return Unexpected(error_);
  return frames_;
}

void WireCapture::record(const io::Frame& frame, uint64_t timestamp_ns,
                         const std::string& comment) {
  std::lock_guard lock(mutex_);
  if (!writer_) return;
  ++frames_;
  if (auto done = writer_->write(frame.bytes, timestamp_ns, comment); !done && error_.empty()) {
    error_ = done.error();
  }
}

size_t WireCapture::send_burst(std::span<const io::Frame> frames) {
  const size_t sent = inner_.send_burst(frames);
  const uint64_t now = realtime_ns();
  for (size_t i = 0; i < sent; ++i) record(frames[i], now, kReference);
  return sent;
}

size_t WireCapture::receive_burst(std::span<io::Frame> out, uint64_t timeout_ns) {
  const size_t n = inner_.receive_burst(out, timeout_ns);
  for (size_t i = 0; i < n; ++i) {
    const uint64_t t = out[i].timestamp_ns;
    record(out[i], t >= kYear2001Ns ? t : realtime_ns(), dut_name_);
  }
  return n;
}

}  // namespace mr::interop
