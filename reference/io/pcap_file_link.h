// File: pcap_file_link.h
//
// A Link over capture files, for offline tests and replay: receive_burst hands out the
// frames of a pcap or pcapng file in order, with their captured timestamps (no pacing, a
// file has everything at once; the timeout is ignored); send_burst appends frames to a
// pcapng file with their timestamps. Either side may be absent.
//
// Usage:
//   auto link = PcapFileLink::open({.replay = "in.pcapng", .record = "out.pcapng"});
//   while (size_t n = link->receive_burst(frames, 0)) respond(frames, n);
//   if (link->replay_error()) log(*link->replay_error());
#pragma once

#include <optional>
#include <string>

#include "reference/error/expected.h"
#include "reference/io/capture_reader.h"
#include "reference/io/link.h"
#include "reference/io/pcapng_writer.h"

namespace mr::io {

struct PcapFileLinkPaths {
  std::string replay = {};  // read from here; empty: receive nothing
  std::string record = {};  // write to here; empty: sends are refused
};

class PcapFileLink final : public Link {
 public:
  static Expected<PcapFileLink, std::string> open(const PcapFileLinkPaths& paths);

  size_t send_burst(std::span<const Frame> frames) override;
  size_t receive_burst(std::span<Frame> out, uint64_t timeout_ns) override;
  std::string name() const override;

  // True once the replay file is exhausted (cleanly or at damage).
  bool replay_done() const { return !reader_ || replay_done_; }
  // Where the replay file was damaged, if it was: frames before it were delivered.
  const std::optional<CaptureError>& replay_error() const { return replay_error_; }
  uint64_t skipped_non_ethernet() const { return skipped_non_ethernet_; }
  // The reason the last refused send gave.
  const std::string& last_send_error() const { return last_send_error_; }
  // Flushes and closes the recording.
  Expected<void, std::string> close();

 private:
  PcapFileLink(PcapFileLinkPaths paths, std::optional<CaptureReader> reader,
               std::optional<PcapngWriter> writer)
      : paths_(std::move(paths)), reader_(std::move(reader)), writer_(std::move(writer)) {}

  PcapFileLinkPaths paths_;
  std::optional<CaptureReader> reader_;
  std::optional<PcapngWriter> writer_;
  bool replay_done_ = false;
  std::optional<CaptureError> replay_error_;
  uint64_t skipped_non_ethernet_ = 0;
  std::string last_send_error_;
};

}  // namespace mr::io
