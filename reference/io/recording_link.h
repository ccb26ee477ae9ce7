// File: recording_link.h
//
// The one way the harness records a capture: frames into a pcapng file in time order, each
// direction on an interface of its own whose name the file carries (Wireshark's
// frame.interface_name), each frame with its comments (who sent it, the script line; for the
// frame a line failed on, the failure text).
//
// Two ways in. As a Link decorator, where the harness is a peer on a live link (the peer, the
// interop matrix): send_burst and receive_burst pass through to the inner Link and what they
// moved is recorded, sent frames on the `sent` interface, received ones on the `received`
// interface. And record(), for a caller that is not a Link (the engine records what its
// ports saw); without an inner Link the decorator sends and receives nothing.
//
// Time order: a bounded reorder window. Frames wait in the window sorted by time (stable for
// equal stamps), the earliest is written when the window is full, the rest at close(). A
// window rather than writing at once, because callers record late: the engine's fault layer
// reports a delayed frame when it releases it, a receive thread may record a reply before the
// sending thread records its request. A window rather than a sort at close, because a long
// capture must not be held whole. A frame older than one already written (later than the
// window allows) is written with the latest written time and says its own time in a comment:
// the file stays in order and the frame is not lost.
//
// Memory: at most `window` frames (default 512, half of a 1 MiB transfer at MTU 1024; 4.6
// MiB of jumbo frames) and their comments.
//
// annotate() adds a comment to a frame still in the window (the engine's failure text, known
// just after the frame is recorded); the frame's first comment stays first, so a reader that
// keeps only one still sees the script line.
//
// Thread-safe: the peer's data path and its control ops send from different threads.
//
//   auto rec = RecordingLink::create("cell.pcapng", {.application = "metaroce interop",
//                                                     .sent = "reference->rxe",
//                                                     .received = "rxe->reference",
//                                                     .sent_comment = "reference",
//                                                     .received_comment = "rxe"}, &wire);
//   ReferencePeer peer(**rec, ...);   // everything crosses the recording
//   if (auto closed = (*rec)->close(); !closed) report(closed.error());
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "reference/error/expected.h"
#include "reference/io/link.h"
#include "reference/io/pcapng_writer.h"

namespace mr::io {

struct RecordingOptions {
  std::string application = "metaroce";  // the section's shb_userappl
  std::string sent = "tester->dut";      // interface 0: what this side sends
  std::string received = "dut->tester";  // interface 1: what it receives
  // The comment of every frame the decorator records, by direction (empty: none).
  std::string sent_comment;
  std::string received_comment;
  size_t window = 512;  // frames held for reordering and annotate(); at least 1
};

class RecordingLink final : public Link {
 public:
  enum class Direction : uint8_t { kSent, kReceived };

  // `inner`, if any, must outlive the RecordingLink. The error names the file.
  static Expected<std::unique_ptr<RecordingLink>, std::string> create(const std::string& path,
                                                                      RecordingOptions options,
                                                                      Link* inner = nullptr);
  ~RecordingLink() override;

  // Sent frames are stamped (CLOCK_REALTIME, as the kernel stamps received ones) before
  // they are sent; received frames keep their stamp when it is a wall-clock time.
  size_t send_burst(std::span<const Frame> frames) override;
  size_t receive_burst(std::span<Frame> out, uint64_t timeout_ns) override;
  std::string name() const override;

  // Records one frame; returns its index (0, 1, ... in call order) for annotate(). Only its
  // first `snap_length` bytes are kept (a snapped frame: its length on the wire stays in
  // the capture), as `tcpdump -s` keeps the headers of bulk traffic.
  uint64_t record(std::span<const uint8_t> frame, uint64_t t_ns, Direction direction,
                  std::string comment, size_t snap_length = SIZE_MAX);
  // Adds a comment to frame `index`; false when it was already written (or never recorded).
  bool annotate(uint64_t index, std::string comment);

  // Writes what the window holds and closes the file; later frames are not recorded.
  // Returns the first error since create(). Also done by the destructor, which cannot
  // report it.
  Expected<void, std::string> close();
  uint64_t frames() const;  // recorded so far

 private:
  struct Held {
    uint64_t index = 0;
    uint64_t t_ns = 0;
    uint32_t interface = 0;
    std::vector<uint8_t> bytes;
    std::vector<std::string> comments;
    size_t original_length = 0;  // > bytes.size() when snapped
  };

  RecordingLink(PcapngWriter writer, RecordingOptions options, Link* inner)
      : inner_(inner), options_(std::move(options)), writer_(std::move(writer)) {}
  void write_earliest();  // with mutex_ held
  void keep_error(const Expected<void, std::string>& done);

  Link* inner_;
  const RecordingOptions options_;
  std::mutex send_mutex_;  // a burst is stamped and sent as one, before the next
  mutable std::mutex mutex_;
  std::optional<PcapngWriter> writer_;
  std::deque<Held> window_;  // sorted by t_ns, then index
  uint64_t next_index_ = 0;
  uint64_t written_t_ns_ = 0;  // the latest time written
  std::string error_;
};

}  // namespace mr::io
