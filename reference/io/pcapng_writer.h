// File: pcapng_writer.h
//
// Writes a pcapng file: one section, Ethernet interfaces with nanosecond timestamps (one
// unnamed, or one per name given: a recording puts each direction on its own, and Wireshark
// shows the name as frame.interface_name), and Enhanced Packet Blocks that may carry
// comments (the harness names the script line that injected or matched each packet there;
// Wireshark shows them as frame.comment). Frames are written in the order given: the
// recording link (recording_link.h) is what puts them in time order.
//
// Usage:
//   auto w = PcapngWriter::create("test.pcapng", "metaroce 0.1");
//   w->write(frame_bytes, timestamp_ns, "RC-PSN-004.mrt:12 inject");
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "reference/error/expected.h"

namespace mr::io {

class PcapngWriter {
 public:
  // `interfaces`: the if_name of each interface, in id order; none gives one unnamed one.
  static Expected<PcapngWriter, std::string> create(const std::string& path,
                                                    std::string_view application,
                                                    std::span<const std::string> interfaces = {});

  Expected<void, std::string> write(std::span<const uint8_t> frame, uint64_t timestamp_ns,
                                    std::string_view comment = {}, uint32_t interface = 0);
  // The same with several comments (one opt_comment each; a reader that keeps only one, as
  // CaptureReader does, sees the first). A frame kept only in part (snapped, as `tcpdump -s`
  // does) gives its length on the wire as `original_length`.
  Expected<void, std::string> write(std::span<const uint8_t> frame, uint64_t timestamp_ns,
                                    std::span<const std::string> comments, uint32_t interface,
                                    size_t original_length = 0);
  // Flushes and closes; also done by the destructor, which cannot report errors.
  Expected<void, std::string> close();

 private:
  struct FileCloser {
    void operator()(std::FILE* f) const { std::fclose(f); }
  };
  PcapngWriter(std::string path, std::FILE* f) : path_(std::move(path)), file_(f) {}
  Expected<void, std::string> put(std::span<const uint8_t> bytes);
  Expected<void, std::string> write_block(std::span<const uint8_t> frame, uint64_t timestamp_ns,
                                          std::span<const std::string_view> comments,
                                          uint32_t interface, size_t original_length);

  std::string path_;
  uint32_t interfaces_ = 1;
  std::unique_ptr<std::FILE, FileCloser> file_;
};

}  // namespace mr::io
