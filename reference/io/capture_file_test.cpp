#include <gtest/gtest.h>
#include <pcap/pcap.h>

#include <cstdio>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "reference/io/capture_reader.h"
#include "reference/io/pcapng_writer.h"
#include "reference/wire/frame_decoder.h"

namespace mr::io {
namespace {

std::string tmp(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir ? dir : "/tmp") + "/" + name;
}

std::vector<uint8_t> slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

void spit(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<long>(bytes.size()));
}

std::vector<CapturedFrame> read_all(CaptureReader& r) {
  std::vector<CapturedFrame> frames;
  for (int i = 0; i < 100000; ++i) {
    auto f = r.next();
    EXPECT_TRUE(f) << f.error().to_string();
    if (!f || !*f) break;
    frames.push_back(**f);
  }
  return frames;
}

TEST(CaptureFile, PcapngRoundTripsFramesTimestampsAndComments) {
  const std::string path = tmp("roundtrip.pcapng");
  {
    auto w = PcapngWriter::create(path, "capture_file_test");
    ASSERT_TRUE(w) << w.error();
    const std::vector<uint8_t> a{1, 2, 3, 4, 5};
    const std::vector<uint8_t> b(61, 0xab);
    ASSERT_TRUE(w->write(a, 1'700'000'000'123'456'789ULL, "script.mrt:3 inject"));
    ASSERT_TRUE(w->write(b, 1'700'000'001'000'000'001ULL));
    ASSERT_TRUE(w->close());
  }
  auto r = CaptureReader::open(path);
  ASSERT_TRUE(r) << r.error().to_string();
  const auto frames = read_all(*r);
  ASSERT_EQ(frames.size(), 2U);
  EXPECT_EQ(frames[0].data.size(), 5U);
  EXPECT_EQ(frames[0].timestamp_ns, 1'700'000'000'123'456'789ULL);
  EXPECT_EQ(frames[1].data.size(), 61U);
  EXPECT_EQ(frames[1].timestamp_ns, 1'700'000'001'000'000'001ULL);
  EXPECT_EQ(frames[0].comment, "script.mrt:3 inject");
  EXPECT_EQ(frames[1].comment, "");

  // libpcap, an independent reader, sees the same file.
  char err[PCAP_ERRBUF_SIZE];
  pcap_t* p = pcap_open_offline(path.c_str(), err);
  ASSERT_NE(p, nullptr) << err;
  pcap_pkthdr* h;
  const u_char* data;
  int n = 0;
  while (pcap_next_ex(p, &h, &data) == 1) ++n;
  pcap_close(p);
  EXPECT_EQ(n, 2);
}

// The bytes of a pcapng built by hand, each field in the file's byte order.
class PcapngBytes {
 public:
  explicit PcapngBytes(bool big_endian = false) : big_endian_(big_endian) {}

  PcapngBytes& u16(uint16_t v) {
    if (big_endian_) v = static_cast<uint16_t>(v << 8 | v >> 8);
    bytes_.insert(bytes_.end(), {uint8_t(v), uint8_t(v >> 8)});
    return *this;
  }
  PcapngBytes& u32(uint32_t v) {
    if (big_endian_) v = __builtin_bswap32(v);
    bytes_.insert(bytes_.end(), {uint8_t(v), uint8_t(v >> 8), uint8_t(v >> 16), uint8_t(v >> 24)});
    return *this;
  }
  PcapngBytes& raw(std::string_view b) {
    bytes_.insert(bytes_.end(), b.begin(), b.end());
    return *this;
  }
  PcapngBytes& fill(size_t n, uint8_t byte) {
    bytes_.insert(bytes_.end(), n, byte);
    return *this;
  }
  // A section header block (version 1.0, section length unknown, no options).
  PcapngBytes& section_header() {
    return u32(0x0A0D0D0A).u32(28).u32(0x1A2B3C4D).u16(1).u16(0).u32(~0U).u32(~0U).u32(28);
  }
  // An interface description block without options.
  PcapngBytes& interface(uint16_t link_type) {
    return u32(1).u32(20).u16(link_type).u16(0).u32(0).u32(20);
  }
  const std::vector<uint8_t>& bytes() const { return bytes_; }

 private:
  bool big_endian_;
  std::vector<uint8_t> bytes_;
};

// A one-frame pcapng whose interface declares `tsresol` (none: the default, microseconds),
// with the frame's timestamp `ticks` in those units; little-endian.
std::vector<uint8_t> pcapng_with_tsresol(std::optional<uint8_t> tsresol, uint64_t ticks) {
  PcapngBytes b;
  b.section_header();
  const uint32_t idb = tsresol ? 32 : 24;
  b.u32(1).u32(idb).u16(1).u16(0).u32(0);
  if (tsresol) b.u16(9).u16(1).u32(*tsresol);  // if_tsresol, padded to 4
  b.u32(0).u32(idb);                           // opt_endofopt
  b.u32(6).u32(32 + 64).u32(0).u32(static_cast<uint32_t>(ticks >> 32));
  b.u32(static_cast<uint32_t>(ticks)).u32(64).u32(64).fill(64, 0x5a).u32(32 + 64);
  return b.bytes();
}

// A one-frame pcapng (3 bytes of data) whose packet block carries `options`, each a code
// and a value (padded here), then opt_endofopt; in either byte order. `bad_length`, when
// set, replaces the length field of the last option.
std::vector<uint8_t> pcapng_with_packet_options(
    bool big_endian, const std::vector<std::pair<uint16_t, std::string>>& options,
    std::optional<uint16_t> bad_length = std::nullopt) {
  PcapngBytes b(big_endian);
  b.section_header().interface(1);
  uint32_t options_size = 4;
  for (const auto& [code, value] : options) options_size += 4 + ((value.size() + 3) & ~3U);
  const uint32_t len = 32 + 4 + options_size;
  b.u32(6).u32(len).u32(0).u32(0).u32(0).u32(3).u32(3).raw({"\xaa\xbb\xcc\0", 4});
  for (size_t i = 0; i < options.size(); ++i) {
    const auto& [code, value] = options[i];
    b.u16(code);
    b.u16(i + 1 == options.size() && bad_length ? *bad_length
                                                : static_cast<uint16_t>(value.size()));
    b.raw(value).fill((4 - value.size() % 4) % 4, 0);
  }
  b.u32(0).u32(len);  // opt_endofopt, trailing length
  return b.bytes();
}

TEST(CaptureFile, PcapngPacketCommentIsTheFirstOptCommentInEitherByteOrder) {
  for (const bool big_endian : {false, true}) {
    const std::string path = tmp("comment.pcapng");
    // epb_flags first: the comment is found behind another option.
    spit(path, pcapng_with_packet_options(
                   big_endian, {{2, std::string(4, '\0')}, {1, "x.mrt:7 probe"}, {1, "second"}}));
    auto r = CaptureReader::open(path);
    ASSERT_TRUE(r) << r.error().to_string();
    const auto frames = read_all(*r);
    ASSERT_EQ(frames.size(), 1U) << "big-endian " << big_endian;
    EXPECT_EQ(frames[0].comment, "x.mrt:7 probe") << "big-endian " << big_endian;
    EXPECT_EQ(frames[0].data.size(), 3U);
  }
}

TEST(CaptureFile, PcapngMalformedPacketOptionGivesNoCommentButKeepsTheFrame) {
  const std::string path = tmp("bad_option.pcapng");
  // The comment's length runs past the block: no comment is read from beyond it.
  spit(path, pcapng_with_packet_options(false, {{1, "abcd"}}, uint16_t{200}));
  auto r = CaptureReader::open(path);
  ASSERT_TRUE(r) << r.error().to_string();
  const auto frames = read_all(*r);
  ASSERT_EQ(frames.size(), 1U);
  EXPECT_EQ(frames[0].comment, "");
  EXPECT_EQ(frames[0].data.size(), 3U);
}

// A frame read into an object that held another leaves none of the other's fields: an
// Enhanced Packet Block on interface 1 (raw IPv4, a timestamp, a comment), then a Simple
// Packet Block, which has no timestamp, no comment and is always on interface 0 (Ethernet).
TEST(CaptureFile, NextIntoAReusedFrameKeepsNothingOfThePreviousFrame) {
  PcapngBytes b;
  b.section_header().interface(1).interface(228);  // 0: Ethernet, 1: raw IPv4
  b.u32(6).u32(48).u32(1).u32(0).u32(7).u32(4).u32(4).raw({"\x01\x02\x03\x04", 4});
  b.u16(1).u16(1).raw({"c\0\0\0", 4});  // opt_comment "c"
  b.u32(0).u32(48);
  b.u32(3).u32(20).u32(3).raw({"\x09\x08\x07\0", 4}).u32(20);
  const std::string path = tmp("reused.pcapng");
  spit(path, b.bytes());
  auto r = CaptureReader::open(path);
  ASSERT_TRUE(r) << r.error().to_string();
  CapturedFrame f;
  auto got = r->next_into(f);
  ASSERT_TRUE(got && *got) << (got ? "end of file" : got.error().to_string());
  EXPECT_EQ(f.interface, 1U);
  EXPECT_EQ(f.link_type, 228U);
  EXPECT_EQ(f.timestamp_ns, 7'000U);
  EXPECT_EQ(f.comment, "c");
  got = r->next_into(f);
  ASSERT_TRUE(got && *got) << (got ? "end of file" : got.error().to_string());
  EXPECT_EQ(f.data.size(), 3U);
  EXPECT_EQ(f.data[0], 9);
  EXPECT_EQ(f.original_length, 3U);
  EXPECT_EQ(f.interface, 0U);
  EXPECT_EQ(f.link_type, kLinkTypeEthernet);
  EXPECT_EQ(f.timestamp_ns, 0U);
  EXPECT_EQ(f.comment, "");
  EXPECT_EQ(f.file_offset, 28U + 20 + 20 + 48);
  for (int i = 0; i < 2; ++i) {  // the end is sticky
    got = r->next_into(f);
    ASSERT_TRUE(got) << got.error().to_string();
    EXPECT_FALSE(*got);
  }
}

TEST(CaptureFile, PcapngTimestampsInEveryResolutionBecomeNanoseconds) {
  struct Case {
    std::optional<uint8_t> tsresol;
    uint64_t ticks;
    uint64_t ns;
  };
  const Case cases[] = {
      {std::nullopt, 1'700'000'000'123'456ULL, 1'700'000'000'123'456'000ULL},  // microseconds
      {9, 1'700'000'000'123'456'789ULL, 1'700'000'000'123'456'789ULL},         // nanoseconds
      {3, 1'700'000'000'123ULL, 1'700'000'000'123'000'000ULL},                 // milliseconds
      {0x8a, 5 * 1024 + 512, 5'500'000'000ULL},                                // 2^-10 s
      {12, 1'234'567'890'123ULL, 1'234'567'890ULL},  // picoseconds: floored to ns
      // Ticks past 2^64 / 1000 microseconds: the division path, not a wrapped multiply.
      {std::nullopt, (~0ULL / 1000) + 1,
       ((~0ULL / 1000) + 1) / 1'000'000 * 1'000'000'000ULL +
           ((~0ULL / 1000) + 1) % 1'000'000 * 1000},
  };
  for (const Case& c : cases) {
    const std::string path = tmp("tsresol.pcapng");
    spit(path, pcapng_with_tsresol(c.tsresol, c.ticks));
    auto r = CaptureReader::open(path);
    ASSERT_TRUE(r) << r.error().to_string();
    const auto frames = read_all(*r);
    ASSERT_EQ(frames.size(), 1U);
    EXPECT_EQ(frames[0].timestamp_ns, c.ns)
        << "tsresol " << (c.tsresol ? int{*c.tsresol} : -1) << " ticks " << c.ticks;
  }
}

TEST(CaptureFile, ReadsPcapWrittenByLibpcap) {
  const std::string path = tmp("libpcap.pcap");
  pcap_t* dead =
      pcap_open_dead_with_tstamp_precision(DLT_EN10MB, 65535, PCAP_TSTAMP_PRECISION_NANO);
  pcap_dumper_t* d = pcap_dump_open(dead, path.c_str());
  ASSERT_NE(d, nullptr);
  std::vector<uint8_t> frame(64, 0x5a);
  pcap_pkthdr h{};
  h.ts.tv_sec = 12;
  h.ts.tv_usec = 345;  // nanoseconds in a nanosecond file
  h.caplen = h.len = 64;
  pcap_dump(reinterpret_cast<u_char*>(d), &h, frame.data());
  pcap_dump_close(d);
  pcap_close(dead);

  auto r = CaptureReader::open(path);
  ASSERT_TRUE(r) << r.error().to_string();
  const auto frames = read_all(*r);
  ASSERT_EQ(frames.size(), 1U);
  EXPECT_EQ(frames[0].timestamp_ns, 12'000'000'345ULL);
  EXPECT_EQ(frames[0].data.size(), 64U);
}

TEST(CaptureFile, TruncatedFileYieldsEarlierFramesThenAnErrorWithTheOffset) {
  const std::string path = tmp("truncated.pcapng");
  {
    auto w = PcapngWriter::create(path, "t");
    ASSERT_TRUE(w);
    for (int i = 0; i < 3; ++i) ASSERT_TRUE(w->write(std::vector<uint8_t>(100, 7), 1000 + i));
    ASSERT_TRUE(w->close());
  }
  auto bytes = slurp(path);
  bytes.resize(bytes.size() - 30);
  spit(path, bytes);
  auto r = CaptureReader::open(path);
  ASSERT_TRUE(r);
  int good = 0;
  for (int i = 0; i < 10; ++i) {
    auto f = r->next();
    if (!f) {
      EXPECT_NE(f.error().to_string().find("truncated"), std::string::npos)
          << f.error().to_string();
      EXPECT_GT(f.error().offset, 0U);
      break;
    }
    ASSERT_TRUE(*f) << "clean end reported for a truncated file";
    ++good;
  }
  EXPECT_EQ(good, 2);
}

TEST(CaptureFile, GarbageIsRejectedWithAClearError) {
  const std::string path = tmp("garbage.bin");
  spit(path, {'h', 'e', 'l', 'l', 'o', ' ', 'w', 'o', 'r', 'l', 'd'});
  auto r = CaptureReader::open(path);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().to_string().find("not a pcap or pcapng file"), std::string::npos);
  auto missing = CaptureReader::open(tmp("does-not-exist.pcap"));
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().to_string().find("No such file"), std::string::npos);
}

TEST(CaptureFile, EveryTruncationOfARealCaptureFailsCleanly) {
  const auto bytes = slurp("pcaps/rxe/rxe-6.1-ipv4-send-retransmits.pcapng");
  ASSERT_GT(bytes.size(), 1000U);
  const std::string path = tmp("cut.pcapng");
  for (size_t n = 0; n < 1200; n += 7) {
    spit(path, std::vector<uint8_t>(bytes.begin(), bytes.begin() + static_cast<long>(n)));
    auto r = CaptureReader::open(path);
    if (!r) continue;
    for (int i = 0; i < 100; ++i) {
      auto f = r->next();
      if (!f || !*f) break;
    }
  }
}

TEST(CaptureFile, RealRxeCapturesDecodeWithValidIcrc) {
  for (const char* name : {"pcaps/rxe/rxe-6.1-ipv4-send-retransmits.pcapng",
                           "pcaps/rxe/rxe-6.1-ipv6-send-retransmits.pcapng"}) {
    auto r = CaptureReader::open(name);
    ASSERT_TRUE(r) << r.error().to_string();
    int roce = 0;
    for (const auto& f : read_all(*r)) {
      auto d = wire::decode_frame(f.data);
      ASSERT_TRUE(d) << d.error().to_string();
      if (const auto* p = std::get_if<wire::DecodedRoce>(&*d)) {
        EXPECT_TRUE(p->icrc_ok()) << name;
        ++roce;
      }
    }
    EXPECT_EQ(roce, 60) << name;
  }
}

}  // namespace
}  // namespace mr::io
