#include "reference/io/recording_link.h"

#include <algorithm>
#include <ctime>

namespace mr::io {
namespace {

uint64_t realtime_ns() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ULL + static_cast<uint64_t>(ts.tv_nsec);
}

// A libpcap link stamps frames with CLOCK_REALTIME; a memory link (tests) with its own
// clock, whose small values would not compare with the sent frames' stamps.
constexpr uint64_t kYear2001Ns = 978'307'200ULL * 1'000'000'000ULL;

}  // namespace

Expected<std::unique_ptr<RecordingLink>, std::string> RecordingLink::create(
    const std::string& path, RecordingOptions options, Link* inner) {
  const std::vector<std::string> interfaces{options.sent, options.received};
  auto writer = PcapngWriter::create(path, options.application, interfaces);
  if (!writer) return Unexpected(writer.error());
  options.window = std::max<size_t>(options.window, 1);
  return std::unique_ptr<RecordingLink>(
      new RecordingLink(std::move(*writer), std::move(options), inner));
}

RecordingLink::~RecordingLink() { (void)close(); }

std::string RecordingLink::name() const {
  return "recording:" + (inner_ != nullptr ? inner_->name() : std::string("-"));
}

size_t RecordingLink::send_burst(std::span<const Frame> frames) {
  if (inner_ == nullptr) return 0;
  // Stamped before sending, and sent under the lock: a reply the receive path records is
  // never stamped before its request.
  std::lock_guard lock(send_mutex_);
  const uint64_t now = realtime_ns();
  const size_t sent = inner_->send_burst(frames);
  for (size_t i = 0; i < sent; ++i)
    record(frames[i].bytes, now, Direction::kSent, options_.sent_comment);
  return sent;
}

size_t RecordingLink::receive_burst(std::span<Frame> out, uint64_t timeout_ns) {
  if (inner_ == nullptr) return 0;
  const size_t n = inner_->receive_burst(out, timeout_ns);
  for (size_t i = 0; i < n; ++i) {
    const uint64_t t = out[i].timestamp_ns;
    record(out[i].bytes, t >= kYear2001Ns ? t : realtime_ns(), Direction::kReceived,
           options_.received_comment);
  }
  return n;
}

uint64_t RecordingLink::record(std::span<const uint8_t> frame, uint64_t t_ns, Direction direction,
                               std::string comment, size_t snap_length) {
  std::lock_guard lock(mutex_);
  if (!writer_) return next_index_;  // closed: not recorded
  const uint64_t index = next_index_++;
  Held h{.index = index,
         .t_ns = t_ns,
         .interface = direction == Direction::kSent ? 0U : 1U,
         .bytes = {frame.begin(), frame.begin() + std::min(frame.size(), snap_length)},
         .comments = {},
         .original_length = frame.size()};
  if (!comment.empty()) h.comments.push_back(std::move(comment));
  // After every frame of the same time: equal stamps keep the order they were recorded in.
  // Frames mostly come in order, so the search from the back is short.
  auto at = window_.end();
  while (at != window_.begin() && std::prev(at)->t_ns > t_ns) --at;
  window_.insert(at, std::move(h));
  if (window_.size() > options_.window) write_earliest();
  return index;
}

bool RecordingLink::annotate(uint64_t index, std::string comment) {
  std::lock_guard lock(mutex_);
  for (auto& h : window_) {
    if (h.index != index) continue;
    if (!comment.empty()) h.comments.push_back(std::move(comment));
    return true;
  }
  return false;
}

void RecordingLink::write_earliest() {
  Held& h = window_.front();
  if (h.t_ns < written_t_ns_) {
    // Recorded later than the window allows: in order at the cost of its time, which the
    // comment keeps.
    h.comments.push_back("recorded late: its time is " + std::to_string(h.t_ns) + " ns");
    h.t_ns = written_t_ns_;
  }
  written_t_ns_ = h.t_ns;
  keep_error(writer_->write(h.bytes, h.t_ns, h.comments, h.interface, h.original_length));
  window_.pop_front();
}

void RecordingLink::keep_error(const Expected<void, std::string>& done) {
  if (!done && error_.empty()) error_ = done.error();
}

Expected<void, std::string> RecordingLink::close() {
  std::lock_guard lock(mutex_);
  if (writer_) {
    while (!window_.empty()) write_earliest();
    keep_error(writer_->close());
    writer_.reset();
  }
  if (!error_.empty()) return Unexpected(error_);
  return {};
}

uint64_t RecordingLink::frames() const {
  std::lock_guard lock(mutex_);
  return next_index_;
}

}  // namespace mr::io
