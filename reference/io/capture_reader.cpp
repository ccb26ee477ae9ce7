#include "reference/io/capture_reader.h"

#include <cstring>
#include <limits>

namespace mr::io {
namespace {

constexpr uint32_t kPcapMagicMicro = 0xa1b2c3d4;
constexpr uint32_t kPcapMagicNano = 0xa1b23c4d;
constexpr uint32_t kPcapngSectionHeader = 0x0a0d0d0a;
constexpr uint32_t kPcapngByteOrderMagic = 0x1a2b3c4d;
constexpr uint32_t kBlockInterface = 1;
constexpr uint32_t kBlockPacketObsolete = 2;
constexpr uint32_t kBlockSimplePacket = 3;
constexpr uint32_t kBlockEnhancedPacket = 6;
constexpr uint32_t kOptionEnd = 0;
constexpr uint32_t kOptionComment = 1;
constexpr uint32_t kOptionTsresol = 9;
constexpr size_t kPcapFileHeader = 24;
constexpr size_t kPcapRecordHeader = 16;
constexpr uint32_t kMaxSnap = 262144;  // libpcap's MAXIMUM_SNAPLEN

uint32_t pad4(uint32_t n) { return (n + 3U) & ~3U; }

}  // namespace

std::string CaptureError::to_string() const {
  return file + ": byte " + std::to_string(offset) + ": " + reason;
}

Unexpected<CaptureError> CaptureReader::fail(uint64_t at, std::string reason) const {
  return Unexpected(CaptureError{path_, at, std::move(reason)});
}

uint32_t CaptureReader::u32(uint64_t at) const {
  uint32_t v;
  std::memcpy(&v, file_.bytes().data() + at, 4);
  return swapped_ ? __builtin_bswap32(v) : v;
}

uint16_t CaptureReader::u16(uint64_t at) const {
  uint16_t v;
  std::memcpy(&v, file_.bytes().data() + at, 2);
  return swapped_ ? __builtin_bswap16(v) : v;
}

Expected<void, CaptureError> CaptureReader::check_link_type(
    uint64_t at, uint32_t link_type, std::optional<uint32_t> interface) const {
  if (!link_type_check_) return {};
  auto reason = link_type_check_(link_type, interface);
  if (!reason) return {};
  return Unexpected(CaptureError{path_, at, std::move(*reason), CaptureError::Cause::kLinkType});
}

Expected<CaptureReader, CaptureError> CaptureReader::open(const std::string& path,
                                                          LinkTypeCheck check) {
  auto file = MappedFile::open(path);
  if (!file) return Unexpected(CaptureError{path, 0, file.error()});
  CaptureReader r(path, std::move(*file));
  r.link_type_check_ = std::move(check);
  if (r.size() < 4) return r.fail(0, "too short to be a pcap or pcapng file");
  uint32_t magic;
  std::memcpy(&magic, r.file_.bytes().data(), 4);
  if (magic == kPcapngSectionHeader) {
    r.format_ = Format::kPcapng;
    return r;  // the section header is read as the first block
  }
  if (auto ok = r.read_pcap_header(); !ok) return Unexpected(ok.error());
  return r;
}

Expected<void, CaptureError> CaptureReader::read_pcap_header() {
  uint32_t magic;
  std::memcpy(&magic, file_.bytes().data(), 4);
  const uint32_t swapped = __builtin_bswap32(magic);
  if (magic == kPcapMagicMicro || magic == kPcapMagicNano) {
    swapped_ = false;
  } else if (swapped == kPcapMagicMicro || swapped == kPcapMagicNano) {
    swapped_ = true;
    magic = swapped;
  } else {
    char buf[64];
    std::snprintf(buf, sizeof buf, "unknown magic 0x%08x: not a pcap or pcapng file", magic);
    return fail(0, buf);
  }
  if (size() < kPcapFileHeader) return fail(0, "pcap file header truncated");
  pcap_ticks_per_second_ = magic == kPcapMagicNano ? 1000000000 : 1000000;
  pcap_link_type_ = u32(20) & 0x0fffffff;  // upper bits: FCS length flags
  if (auto ok = check_link_type(20, pcap_link_type_, std::nullopt); !ok) return ok;
  pos_ = kPcapFileHeader;
  format_ = Format::kPcap;
  return {};
}

Expected<std::optional<CapturedFrame>, CaptureError> CaptureReader::next() {
  CapturedFrame f;
  auto got = next_into(f);
  if (!got) return Unexpected(std::move(got.error()));
  if (!*got) return std::nullopt;
  return f;
}

Expected<bool, CaptureError> CaptureReader::next_into(CapturedFrame& out) {
  // Pages behind the cursor are handed back in steps, so that reading a capture of any size
  // keeps a bounded resident window instead of the whole file (page cache aside).
  if (pos_ - released_ >= kReleaseStep) {
    file_.release(released_, pos_);
    released_ = pos_;
  }
  return format_ == Format::kPcap ? next_pcap(out) : next_pcapng(out);
}

Expected<bool, CaptureError> CaptureReader::next_pcap(CapturedFrame& out) {
  if (pos_ == size()) return false;
  const uint64_t at = pos_;
  if (size() - at < kPcapRecordHeader) {
    return fail(at, "record header truncated: " + std::to_string(size() - at) + " of 16 bytes");
  }
  const uint64_t sec = u32(at);
  const uint64_t frac = u32(at + 4);
  const uint32_t caplen = u32(at + 8);
  const uint32_t origlen = u32(at + 12);
  if (caplen > kMaxSnap) {
    return fail(at + 8, "captured length " + std::to_string(caplen) + " exceeds the maximum " +
                            std::to_string(kMaxSnap));
  }
  if (size() - at - kPcapRecordHeader < caplen) {
    return fail(at, "record of " + std::to_string(caplen) + " bytes truncated: " +
                        std::to_string(size() - at - kPcapRecordHeader) + " remain");
  }
  if (frac >= pcap_ticks_per_second_) {
    return fail(at + 4, "timestamp fraction " + std::to_string(frac) + " is not below 1 second");
  }
  pos_ = at + kPcapRecordHeader + caplen;
  out.data = file_.bytes().subspan(at + kPcapRecordHeader, caplen);
  out.timestamp_ns = sec * 1000000000ULL + frac * (1000000000ULL / pcap_ticks_per_second_);
  out.original_length = origlen;
  out.link_type = pcap_link_type_;
  out.interface = 0;
  out.file_offset = at;
  out.comment = {};
  return true;
}

Expected<void, CaptureError> CaptureReader::read_section_header(uint64_t at, uint32_t block_len) {
  if (block_len < 28)
    return fail(at + 4, "section header block length " + std::to_string(block_len) + " below 28");
  uint32_t bom;
  std::memcpy(&bom, file_.bytes().data() + at + 8, 4);
  if (bom == kPcapngByteOrderMagic) {
    swapped_ = false;
  } else if (__builtin_bswap32(bom) == kPcapngByteOrderMagic) {
    swapped_ = true;
  } else {
    return fail(at + 8, "bad byte-order magic in section header");
  }
  const uint16_t major = u16(at + 12);
  if (major != 1) return fail(at + 12, "unsupported pcapng major version " + std::to_string(major));
  interfaces_.clear();
  return {};
}

// The first opt_comment among the options in [at, end), or empty. Out of line: most
// captures' packets have no options, and their path should not carry this loop.
[[gnu::noinline]] std::string_view CaptureReader::packet_comment(uint64_t at, uint64_t end) const {
  while (at + 4 <= end) {
    const uint16_t code = u16(at);
    const uint64_t len = u16(at + 2);
    if (code == kOptionEnd || len > end - at - 4) return {};
    if (code == kOptionComment) {
      return {reinterpret_cast<const char*>(file_.bytes().data() + at + 4), len};
    }
    at += 4 + pad4(static_cast<uint32_t>(len));
  }
  return {};
}

// A block's type and length, checked against the file and its trailing copy; the byte order
// is only known after a section header's byte-order magic.
Expected<std::pair<uint32_t, uint32_t>, CaptureError> CaptureReader::read_block_header(
    uint64_t at) {
  if (size() - at < 12)
    return fail(at, "block header truncated: " + std::to_string(size() - at) + " bytes remain");
  uint32_t type;
  std::memcpy(&type, file_.bytes().data() + at, 4);
  if (type == kPcapngSectionHeader) {
    uint32_t bom;
    std::memcpy(&bom, file_.bytes().data() + at + 8, 4);
    swapped_ = bom != kPcapngByteOrderMagic;
  } else {
    type = u32(at);
  }
  const uint32_t len = u32(at + 4);
  if (len < 12 || len % 4 != 0) {
    return fail(at + 4,
                "block length " + std::to_string(len) + " is not a multiple of 4 of at least 12");
  }
  if (len > size() - at) {
    return fail(at, "block of " + std::to_string(len) +
                        " bytes truncated: " + std::to_string(size() - at) + " remain");
  }
  if (u32(at + len - 4) != len) {
    return fail(at + len - 4, "trailing block length " + std::to_string(u32(at + len - 4)) +
                                  " differs from the leading " + std::to_string(len));
  }
  return std::pair{type, len};
}

// An interface description: its link type and if_tsresol (options: code(2) length(2) value
// padded to 4).
Expected<void, CaptureError> CaptureReader::read_interface(uint64_t at, uint64_t body,
                                                           uint32_t body_len) {
  if (body_len < 8) return fail(at, "interface description block too short");
  Interface ifc;
  ifc.link_type = u16(body);
  uint64_t o = body + 8;
  const uint64_t end = body + body_len;
  while (o + 4 <= end) {
    const uint16_t code = u16(o);
    const uint16_t olen = u16(o + 2);
    if (code == kOptionEnd) break;
    if (o + 4 + olen > end) return fail(o, "interface option runs past its block");
    if (code == kOptionTsresol && olen >= 1) {
      const uint8_t res = file_.bytes()[o + 4];
      const unsigned exp = res & 0x7f;
      const unsigned base = (res & 0x80) ? 2 : 10;
      if ((base == 10 && exp > 19) || (base == 2 && exp > 63)) {
        return fail(o + 4, "if_tsresol " + std::to_string(res) + " out of range");
      }
      uint64_t t = 1;
      for (unsigned i = 0; i < exp; ++i) t *= base;
      ifc.ticks_per_second = t;
      ifc.ns_per_tick = 1000000000ULL % t == 0 ? 1000000000ULL / t : 0;
    }
    o += 4 + pad4(olen);
  }
  const auto number = static_cast<uint32_t>(interfaces_.size());
  if (auto ok = check_link_type(body, ifc.link_type, number); !ok) return ok;
  interfaces_.push_back(ifc);
  return {};
}

// An enhanced (or obsolete) packet block: the frame, its time in the interface's resolution
// and its comment.
Expected<void, CaptureError> CaptureReader::read_packet(uint32_t type, uint64_t at, uint64_t body,
                                                        uint32_t body_len, CapturedFrame& out) {
  if (body_len < 20) return fail(at, "packet block too short");
  const uint32_t ifid = type == kBlockEnhancedPacket ? u32(body) : u16(body);
  if (ifid >= interfaces_.size()) {
    return fail(body, "packet names interface " + std::to_string(ifid) +
                          " but the section declares " + std::to_string(interfaces_.size()));
  }
  const uint64_t ts = uint64_t{u32(body + 4)} << 32 | u32(body + 8);
  const uint32_t caplen = u32(body + 12);
  if (caplen > body_len - 20) {
    return fail(body + 12, "captured length " + std::to_string(caplen) + " exceeds its block");
  }
  const Interface& ifc = interfaces_[ifid];
  out.data = file_.bytes().subspan(body + 20, caplen);
  const uint64_t tps = ifc.ticks_per_second;
  if (ifc.ns_per_tick != 0 && ts <= std::numeric_limits<uint64_t>::max() / ifc.ns_per_tick) {
    out.timestamp_ns = ts * ifc.ns_per_tick;
  } else {
    out.timestamp_ns =
        (ts / tps) * 1000000000ULL +
        static_cast<uint64_t>((static_cast<unsigned __int128>(ts % tps) * 1000000000ULL) / tps);
  }
  out.original_length = u32(body + 16);
  out.link_type = ifc.link_type;
  out.interface = ifid;
  out.file_offset = at;
  const uint64_t options = body + 20 + pad4(caplen);  // caplen <= body_len - 20: no wrap
  out.comment = options + 4 <= body + body_len ? packet_comment(options, body + body_len)
                                               : std::string_view{};
  return {};
}

// A simple packet block: no time, the first interface's link type.
Expected<void, CaptureError> CaptureReader::read_simple_packet(uint64_t at, uint64_t body,
                                                               uint32_t body_len,
                                                               CapturedFrame& out) {
  if (interfaces_.empty()) return fail(at, "simple packet block before any interface");
  const uint32_t origlen = u32(body);
  const uint32_t caplen = std::min(origlen, body_len - 4);
  out.data = file_.bytes().subspan(body + 4, caplen);
  out.timestamp_ns = 0;
  out.original_length = origlen;
  out.link_type = interfaces_[0].link_type;
  out.interface = 0;
  out.file_offset = at;
  out.comment = {};
  return {};
}

Expected<bool, CaptureError> CaptureReader::next_pcapng(CapturedFrame& out) {
  while (pos_ < size()) {
    const uint64_t at = pos_;
    auto header = read_block_header(at);
    if (!header) return Unexpected(header.error());
    const auto [type, len] = *header;
    pos_ = at + len;
    const uint64_t body = at + 8;
    const uint32_t body_len = len - 12;
    switch (type) {
      case kPcapngSectionHeader:
        if (auto ok = read_section_header(at, len); !ok) return Unexpected(ok.error());
        break;
      case kBlockInterface:
        if (auto ok = read_interface(at, body, body_len); !ok) return Unexpected(ok.error());
        break;
      case kBlockEnhancedPacket:
      case kBlockPacketObsolete:
        if (auto ok = read_packet(type, at, body, body_len, out); !ok)
          return Unexpected(ok.error());
        return true;
      case kBlockSimplePacket:
        if (auto ok = read_simple_packet(at, body, body_len, out); !ok)
          return Unexpected(ok.error());
        return true;
      default:
        break;  // statistics, name resolution, custom blocks: not frames
    }
  }
  return false;
}

}  // namespace mr::io
