// File: pcapng_writer.h
//
// Writes a pcapng file: one section, one Ethernet interface with nanosecond timestamps,
// and Enhanced Packet Blocks that may carry a comment (the harness names the script line
// that injected or matched each packet there; Wireshark shows it as pkt_comment).
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
  static Expected<PcapngWriter, std::string> create(const std::string& path,
                                                    std::string_view application);

  Expected<void, std::string> write(std::span<const uint8_t> frame, uint64_t timestamp_ns,
                                    std::string_view comment = {});
  // Flushes and closes; also done by the destructor, which cannot report errors.
  Expected<void, std::string> close();

 private:
  struct FileCloser {
    void operator()(std::FILE* f) const { std::fclose(f); }
  };
  PcapngWriter(std::string path, std::FILE* f) : path_(std::move(path)), file_(f) {}
  Expected<void, std::string> put(std::span<const uint8_t> bytes);

  std::string path_;
  std::unique_ptr<std::FILE, FileCloser> file_;
};

}  // namespace mr::io
