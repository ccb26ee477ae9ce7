// File: capturing_link.h
//
// A Link that records every frame it sends and receives into a pcapng file, in the order it
// sees them, so that the whole exchange between the reference peer and a tool can be judged
// by `metaroce analyze` afterwards. Frames the reference sent carry the comment
// "reference peer", frames it received "tool": neither is a tester comment, so the analyzer
// judges both sides. Thread-safe: the data path and control ops send from different threads.
//
//   auto capture = CapturingLink::create(pcap_link, "run.pcapng");
//   ReferenceBackend backend(*capture, clock, options);   // everything crosses the capture
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>

#include "reference/error/expected.h"
#include "reference/io/link.h"
#include "reference/io/pcapng_writer.h"

namespace mr::peer {

class CapturingLink final : public io::Link {
 public:
  // `inner` must outlive the CapturingLink.
  static Expected<std::unique_ptr<CapturingLink>, std::string> create(io::Link& inner,
                                                                      const std::string& path);

  size_t send_burst(std::span<const io::Frame> frames) override;
  size_t receive_burst(std::span<io::Frame> out, uint64_t timeout_ns) override;
  std::string name() const override { return "capture:" + inner_.name(); }

  // Flushes and closes the file; later frames are not recorded. The first write error, if any.
  Expected<void, std::string> close();
  uint64_t frames() const;

 private:
  CapturingLink(io::Link& inner, io::PcapngWriter writer)
      : inner_(inner), writer_(std::move(writer)) {}
  void record(const io::Frame& frame, uint64_t timestamp_ns, const char* comment);
  void record_locked(const io::Frame& frame, uint64_t timestamp_ns, const char* comment);

  io::Link& inner_;
  mutable std::mutex mutex_;
  std::optional<io::PcapngWriter> writer_;
  std::string error_;
  uint64_t frames_ = 0;
};

}  // namespace mr::peer
