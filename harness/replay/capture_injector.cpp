#include "harness/replay/capture_injector.h"

#include <algorithm>
#include <cerrno>
#include <ctime>
#include <span>
#include <vector>

#include "harness/replay/recorded_connection.h"
#include "reference/io/capture_reader.h"
#include "reference/io/clock.h"
#include "reference/io/pcap_link.h"

namespace mr::replay {
namespace {

// Frames per send_burst call when nothing paces them.
constexpr size_t kBurst = 32;
constexpr uint64_t kRetryPauseNs = 20'000;

void sleep_until(uint64_t monotonic_ns) {
  const timespec t{static_cast<time_t>(monotonic_ns / 1'000'000'000ULL),
                   static_cast<long>(monotonic_ns % 1'000'000'000ULL)};
  // EINTR: sleep again toward the same absolute time; the deadline bounds the loop.
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, nullptr) == EINTR) {
  }
}

// Sends frames until the link took all of them or refused for longer than the limit.
class Sender {
 public:
  Sender(io::Link& link, const InjectOptions& options) : link_(link), options_(options) {}

  Expected<void, std::string> send(std::span<const io::Frame> frames) {
    uint64_t stalled_since = 0;
    while (!frames.empty()) {
      const size_t n = link_.send_burst(frames);
      sent_ += n;
      frames = frames.subspan(n);
      if (n > 0 || frames.empty()) {
        stalled_since = 0;
        continue;
      }
      const uint64_t now = clock_.now_ns();
      if (stalled_since == 0) stalled_since = now;
      if (now - stalled_since > options_.stall_limit_ns) {
        return Unexpected(link_.name() + ": refused frames for " +
                          std::to_string(options_.stall_limit_ns / 1'000'000) + " ms after " +
                          std::to_string(sent_) + " sent");
      }
      sleep_until(now + kRetryPauseNs);
    }
    return {};
  }
  uint64_t sent() const { return sent_; }

 private:
  io::Link& link_;
  const InjectOptions& options_;
  io::SystemClock clock_;
  uint64_t sent_ = 0;
};

// The 1-based frame numbers of one connection, in capture order.
Expected<std::vector<uint64_t>, std::string> connection_frames(const std::string& path,
                                                               size_t index) {
  auto c = extract_connection(path, index);
  if (!c) return Unexpected(c.error());
  std::vector<uint64_t> numbers;
  numbers.reserve(c->packets.size());
  for (const RecordedPacket& p : c->packets) numbers.push_back(p.frame_number);
  return numbers;
}

}  // namespace

Expected<InjectResult, std::string> inject_capture(const std::string& path, io::Link& link,
                                                   const InjectOptions& options) {
  std::vector<uint64_t> wanted;
  if (options.connection) {
    auto numbers = connection_frames(path, *options.connection);
    if (!numbers) return Unexpected(numbers.error());
    wanted = std::move(*numbers);
  }
  auto reader = io::CaptureReader::open(path);
  if (!reader) return Unexpected(reader.error().to_string());

  InjectResult result;
  Sender sender(link, options);
  const io::SystemClock clock;
  std::vector<io::Frame> burst(kBurst);
  size_t queued = 0;
  size_t next_wanted = 0;
  uint64_t start_ns = 0;
  uint64_t offset_ns = 0;  // when the current frame is due, after start_ns
  uint64_t previous_ts = 0;
  for (;;) {
    auto f = reader->next();
    if (!f) return Unexpected(f.error().to_string());
    if (!*f) break;
    const uint64_t number = ++result.frames_in_capture;
    if (options.connection) {
      if (next_wanted == wanted.size() || wanted[next_wanted] != number) continue;
      ++next_wanted;
    }
    const io::CapturedFrame& frame = **f;
    if (frame.link_type != io::kLinkTypeEthernet) {
      return Unexpected(path + ": frame " + std::to_string(number) + ": link type " +
                        std::to_string(frame.link_type) + " is not Ethernet");
    }
    if (result.selected++ == 0) {
      start_ns = clock.now_ns();
    } else if (!options.fast) {
      const uint64_t gap = frame.timestamp_ns > previous_ts ? frame.timestamp_ns - previous_ts : 0;
      offset_ns += std::min(gap, options.max_gap_ns);
    }
    previous_ts = frame.timestamp_ns;
    io::Frame& out = burst[queued++];
    out.bytes.assign(frame.data.begin(), frame.data.end());
    out.timestamp_ns = frame.timestamp_ns;
    if (!options.fast) sleep_until(start_ns + offset_ns);
    if (!options.fast || queued == burst.size()) {
      if (auto sent = sender.send(std::span(burst).first(queued)); !sent) {
        return Unexpected(sent.error());
      }
      queued = 0;
    }
  }
  if (auto sent = sender.send(std::span(burst).first(queued)); !sent) {
    return Unexpected(sent.error());
  }
  if (options.connection && result.selected == 0) {
    return Unexpected(path + ": connection " + std::to_string(*options.connection) +
                      " has no frames");
  }
  result.sent = sender.sent();
  result.elapsed_ns = result.selected > 0 ? clock.now_ns() - start_ns : 0;
  return result;
}

Expected<InjectResult, std::string> inject_capture_onto(const std::string& path,
                                                        const std::string& interface,
                                                        const InjectOptions& options) {
  // Only sending matters here: a filter that matches nothing keeps the receive ring empty.
  io::PcapLinkOptions link_options;
  link_options.filter = "less 0";
  auto link = io::PcapLink::open(interface, link_options);
  if (!link) return Unexpected(link.error());
  auto result = inject_capture(path, *link, options);
  if (!result && !link->last_send_error().empty()) {
    return Unexpected(result.error() + " (" + link->last_send_error() + ")");
  }
  return result;
}

}  // namespace mr::replay
