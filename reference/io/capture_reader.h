// File: capture_reader.h
//
// Streams the frames of a pcap or pcapng file, one at a time, with bounded memory.
//
// Why not libpcap: libpcap reports corruption without the file offset, and it reads
// through stdio copies. This reader maps the file, bounds-checks every block and record
// header, and names the byte offset of whatever is wrong, so that a truncated capture from
// the field still yields every frame before the damage plus a precise error.
//
// Formats: pcap (microsecond and nanosecond, either byte order) and pcapng (Section
// Header, Interface Description with if_tsresol, Enhanced and Simple Packet Blocks, the
// obsolete Packet Block; other blocks are skipped; several sections and interfaces). Of a
// packet's options, the first opt_comment is kept (the harness names the script line of each
// packet there); the others are skipped.
//
// Usage:
//   auto reader = CaptureReader::open("trace.pcapng");
//   while (true) {
//     auto f = reader->next();
//     if (!f) { report(f.error().to_string()); break; }
//     if (!*f) break;          // clean end of file
//     use((*f)->data);
//   }
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "reference/error/expected.h"
#include "reference/io/mapped_file.h"

namespace mr::io {

inline constexpr uint32_t kLinkTypeEthernet = 1;

struct CaptureError {
  // What stopped the reading: the file (missing, not a capture, corrupt or cut short), or a
  // link type the caller does not read, refused where the file declares it (LinkTypeCheck).
  enum class Cause { kFile, kLinkType };

  std::string file;
  uint64_t offset = 0;  // byte offset in the file where the problem is
  std::string reason;
  Cause cause = Cause::kFile;
  std::string to_string() const;  // "trace.pcap: byte 1234: record length 70000 exceeds ..."
};

// Judges each link type a file declares (the pcap file header's; each pcapng interface
// description's, with the interface's number): the reason it is refused, or nullopt.
using LinkTypeCheck = std::function<std::optional<std::string>(uint32_t link_type,
                                                               std::optional<uint32_t> interface)>;

struct CapturedFrame {
  std::span<const uint8_t> data;  // the captured bytes (borrowed from the mapping)
  uint64_t timestamp_ns = 0;      // since the Unix epoch
  uint32_t original_length = 0;   // length on the wire; > data.size() when snapped
  uint32_t link_type = kLinkTypeEthernet;
  uint32_t interface = 0;    // pcapng interface id; 0 for pcap
  uint64_t file_offset = 0;  // where the frame's record starts
  // pcapng: the packet's first opt_comment (borrowed from the mapping), empty without one.
  // Options are not validated beyond it: a malformed option ends the search, not the file.
  std::string_view comment;
};

class CaptureReader {
 public:
  enum class Format { kPcap, kPcapng };

  // With `check`, a link type it refuses is an error (Cause::kLinkType) where the file
  // declares it: open() fails for a pcap file, next() at a pcapng interface description,
  // before any frame of that interface, so a file without frames is refused as well.
  static Expected<CaptureReader, CaptureError> open(const std::string& path,
                                                    LinkTypeCheck check = {});

  // The next frame, nullopt at a clean end, or the first corruption found.
  Expected<std::optional<CapturedFrame>, CaptureError> next();
  // The same into `out`, which a loop reuses: true with every field of `out` set, false at a
  // clean end. The frame is written where the caller keeps it: built in a local and copied
  // out, it was stored in narrow pieces and reloaded in wide ones, and each reload waited
  // on the stores (a fifth of the analyzer's decode thread).
  Expected<bool, CaptureError> next_into(CapturedFrame& out);

  Format format() const { return format_; }
  const std::string& path() const { return path_; }
  uint64_t size() const { return file_.bytes().size(); }
  // The mapped file, for what the reader skips. Bytes far behind the last frame returned may
  // have been released: reading them faults them back in.
  std::span<const uint8_t> bytes() const { return file_.bytes(); }

 private:
  struct Interface {
    uint32_t link_type = 0;
    uint64_t ticks_per_second = 1000000;
    // 1e9 / ticks_per_second when that divides evenly (every decimal resolution up to
    // nanoseconds), else 0: the common case then costs a multiply, not a 128-bit division.
    uint64_t ns_per_tick = 1000;
  };

  CaptureReader(std::string path, MappedFile file)
      : path_(std::move(path)), file_(std::move(file)) {}
  Expected<void, CaptureError> read_pcap_header();
  Expected<bool, CaptureError> next_pcap(CapturedFrame& out);
  Expected<bool, CaptureError> next_pcapng(CapturedFrame& out);
  Expected<std::pair<uint32_t, uint32_t>, CaptureError> read_block_header(uint64_t at);
  Expected<void, CaptureError> read_interface(uint64_t at, uint64_t body, uint32_t body_len);
  Expected<void, CaptureError> read_packet(uint32_t type, uint64_t at, uint64_t body,
                                           uint32_t body_len, CapturedFrame& out);
  Expected<void, CaptureError> read_simple_packet(uint64_t at, uint64_t body, uint32_t body_len,
                                                  CapturedFrame& out);
  Expected<void, CaptureError> read_section_header(uint64_t at, uint32_t block_len);
  std::string_view packet_comment(uint64_t options, uint64_t end) const;
  Unexpected<CaptureError> fail(uint64_t at, std::string reason) const;
  // The check's refusal of `link_type`, declared at `at`, or nothing.
  Expected<void, CaptureError> check_link_type(uint64_t at, uint32_t link_type,
                                               std::optional<uint32_t> interface) const;
  uint32_t u32(uint64_t at) const;
  uint16_t u16(uint64_t at) const;

  std::string path_;
  MappedFile file_;
  LinkTypeCheck link_type_check_;
  Format format_ = Format::kPcap;
  bool swapped_ = false;  // file byte order differs from this host's
  uint64_t pos_ = 0;
  static constexpr uint64_t kReleaseStep = 32ULL << 20;
  uint64_t released_ = 0;  // bytes before this offset were released (MappedFile::release)
  // pcap
  uint32_t pcap_link_type_ = 0;
  uint64_t pcap_ticks_per_second_ = 1000000;
  // pcapng: interfaces of the current section
  std::vector<Interface> interfaces_;
};

}  // namespace mr::io
