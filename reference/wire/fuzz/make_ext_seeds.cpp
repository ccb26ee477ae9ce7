// Writes the Ext (Part II) seed frames of the frame decoder's fuzz corpus: every opcode of
// table 19.1, plain and secure (TVer 1, and SX for secure), over IPv4 and IPv6, some with an
// 802.1Q tag, then the same opcodes cut short inside their headers or their SecTag, and a
// few frames on the edges of the Ext rules (an opcode outside table 19.1 under TVer 1, SX
// on a TVer-0 BTH, a control packet with payload, a pad count that reaches into the tag).
// Field values are drawn from a seeded generator; the seed is printed, and the same seed
// gives the same files.
//
//   bazel run //reference/wire/fuzz:make_ext_seeds -- --seed 21 --out
//   $PWD/reference/wire/fuzz/corpus
//
// Each file is named ext-<kind>-<net>-<opcode name>; a frame meant to be refused says so in
// its kind ("cut-", "edge-").
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "reference/wire/frame_builder.h"
#include "reference/wire/frame_decoder.h"
#include "reference/wire/opcode.h"

namespace {

using namespace mr::wire;

class Seeds {
 public:
  Seeds(uint64_t seed, std::filesystem::path out) : rng_(seed), out_(std::move(out)) {}

  std::vector<uint8_t> bytes(size_t n) {
    std::vector<uint8_t> b(n);
    for (auto& x : b) x = static_cast<uint8_t>(rng_());
    return b;
  }
  uint32_t below(uint32_t n) { return static_cast<uint32_t>(rng_() % n); }
  bool coin(unsigned percent) { return below(100) < percent; }

  // A header with every field random (read from random bytes, as the decoder fills it).
  template <class H>
  H random_header() {
    const auto b = bytes(H::kSize);
    ByteReader r(b);
    H h;
    h.read(r);
    return h;
  }

  // An Ext packet of `op` with random field values, every header its table row names, and
  // a payload of 0..96 bytes (with a consistent pad) when the opcode carries one.
  RocePacket packet(uint8_t op, bool secure, bool ipv6, bool vlan) {
    RocePacket p;
    p.eth.dst.bytes = {0x02, 0, 0, 0, 0, 0x02};
    p.eth.src.bytes = {0x02, 0, 0, 0, 0, 0x01};
    if (vlan) {
      auto& v = p.vlan.emplace();
      v.vlan = below(4096);
      v.prio = below(8);
      p.eth.type = kEtherTypeDot1Q;
    }
    const uint16_t l3_type = ipv6 ? kEtherTypeIpv6 : kEtherTypeIpv4;
    (vlan ? p.vlan->type : p.eth.type) = l3_type;
    if (ipv6) {
      Ipv6 ip;
      ip.src = *Ipv6Address::parse("2001:2::1");
      ip.dst = *Ipv6Address::parse("2001:2::2");
      ip.tc = below(256);
      ip.fl = below(1 << 20);
      p.ip = ip;
    } else {
      Ipv4 ip;
      ip.src = *Ipv4Address::parse("198.18.0.1");
      ip.dst = *Ipv4Address::parse("198.18.0.2");
      ip.tos = below(256);
      ip.id = below(65536);
      ip.flags = 2;
      p.ip = ip;
    }
    p.udp.sport = 49152 + below(16384);
    p.udp.dport = kRoceV2Port;
    p.bth = random_header<Bth>();
    p.bth.opcode = op;
    p.bth.version = kExtVersion;
    p.bth.resv7 = (p.bth.resv7.value() & ~Bth::kResv7Sx) | (secure ? Bth::kResv7Sx : 0);
    const OpcodeInfo* info = opcode_info(op, p.bth.header_set());
    if (info == nullptr) std::abort();
    if (info->has(kSech)) {
      p.sech = random_header<Sech>();
      p.sech->ver = kExtVersion;
      p.sech->suite = kSecureSuiteAes256Gcm;
    }
    if (info->has(kMxh)) {
      p.mxh = random_header<Mxh>();
      p.mxh->ver = kExtVersion;
    }
    if (info->has(kReth)) p.reth = random_header<Reth>();
    if (info->has(kAtomicEth)) p.atomic_eth = random_header<AtomicEth>();
    if (info->has(kImmDt)) p.imm_dt = random_header<ImmDt>();
    if (info->has(kIeth)) p.ieth = random_header<Ieth>();
    if (info->has(kAeth)) p.aeth = random_header<Aeth>();
    if (info->has(kAtomicAckEth)) p.atomic_ack_eth = random_header<AtomicAckEth>();
    if (info->has(kSacketh)) p.sacketh = random_header<Sacketh>();
    if (info->has(kCreth)) {
      p.creth = random_header<Creth>();
      p.creth->ver = kExtVersion;
    }
    if (info->has(kRsyneth)) p.rsyneth = random_header<Rsyneth>();
    if (secure) p.sec_tag = random_header<SecTag>();
    payload_ = info->is(kPayload) ? bytes(below(97)) : std::vector<uint8_t>{};
    p.payload = payload_;
    p.bth.padcount = (4 - payload_.size() % 4) % 4;
    p.pad = std::span(kZeros).first(p.bth.padcount);
    return p;
  }

  void write(std::string_view kind, bool ipv6, bool vlan, std::string_view name,
             const std::vector<uint8_t>& frame) {
    std::string file = "ext-" + std::string(kind) + "-" + (ipv6 ? "v6" : "v4") + (vlan ? "q" : "") +
                       "-" + std::string(name);
    std::ofstream(out_ / file, std::ios::binary)
        .write(reinterpret_cast<const char*>(frame.data()),
               static_cast<std::streamsize>(frame.size()));
    ++written_;
  }
  int written() const { return written_; }

 private:
  static constexpr std::array<uint8_t, 3> kZeros{};
  std::mt19937_64 rng_;
  std::filesystem::path out_;
  std::vector<uint8_t> payload_;
  int written_ = 0;
};

// Removes the transport bytes [from, from + n) of `frame` (BTH at `bth`) and corrects the IP
// and UDP lengths, so that the frame is refused for the cut header, not for its lengths.
std::vector<uint8_t> cut(std::vector<uint8_t> frame, const RocePacket& p, size_t from, size_t n) {
  frame.erase(frame.begin() + static_cast<long>(from), frame.begin() + static_cast<long>(from + n));
  const size_t l3 = Ether::kSize + (p.vlan ? Dot1Q::kSize : 0);
  const size_t udp = l3 + (p.is_ipv6() ? Ipv6::kSize : 20);
  auto put16 = [&](size_t at, size_t v) {
    frame[at] = static_cast<uint8_t>(v >> 8);
    frame[at + 1] = static_cast<uint8_t>(v);
  };
  const size_t udp_len = frame.size() - udp;
  put16(udp + 4, udp_len);
  if (p.is_ipv6()) {
    put16(l3 + 4, udp_len);
  } else {
    put16(l3 + 2, udp_len + 20);
  }
  return frame;
}

bool refused(const std::vector<uint8_t>& frame) { return !decode_frame(frame).has_value(); }

}  // namespace

int run(int argc, char** argv) {
  uint64_t seed = 21;
  std::filesystem::path out;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string_view flag = argv[i];
    if (flag == "--seed") seed = std::strtoull(argv[i + 1], nullptr, 0);
    if (flag == "--out") out = argv[i + 1];
  }
  if (out.empty()) {
    std::fprintf(stderr, "usage: make_ext_seeds [--seed N] --out DIR\n");
    return 2;
  }
  std::filesystem::create_directories(out);
  std::printf("make_ext_seeds: seed %llu\n", static_cast<unsigned long long>(seed));
  Seeds s(seed, out);
  int opcodes = 0;
  for (bool secure : {false, true}) {
    const HeaderSet set = secure ? HeaderSet::kExtSecure : HeaderSet::kExt;
    for (int v = 0; v < 256; ++v) {
      const auto op = static_cast<uint8_t>(v);
      const OpcodeInfo* info = opcode_info(op, set);
      if (info == nullptr) continue;
      ++opcodes;
      const std::string name = info->name();
      for (bool ipv6 : {false, true}) {
        const bool vlan = s.coin(30);
        const RocePacket p = s.packet(op, secure, ipv6, vlan);
        const auto frame = build_frame(p);
        const auto d = decode_frame(frame);
        if (!d || !std::get<DecodedRoce>(*d).icrc_ok()) {
          std::fprintf(stderr, "%s does not decode with a good ICRC\n", name.c_str());
          return 1;
        }
        s.write(secure ? "secure" : "plain", ipv6, vlan, name, frame);

        // Cut short: inside the headers after the BTH (each header's bytes are counted by
        // header_bytes), or, for a secure packet, inside the SecTag.
        const size_t bth = frame.size() - kIcrcSize - (secure ? kSecTagSize : 0) - p.pad.size() -
                           p.payload.size() - info->header_bytes() - kBthSize;
        const size_t headers = info->header_bytes();
        const size_t from = bth + kBthSize + s.below(headers);
        const size_t to = frame.size() - kIcrcSize;
        auto short_headers = cut(frame, p, from, to - from);
        if (!refused(short_headers)) return std::fprintf(stderr, "cut %s kept\n", name.c_str()), 1;
        s.write(secure ? "cut-secure-headers" : "cut-headers", ipv6, vlan, name, short_headers);
        if (secure) {
          const size_t tag = to - kSecTagSize;
          const size_t keep = s.below(kSecTagSize);
          auto short_tag = cut(frame, p, tag - p.pad.size() - p.payload.size() + keep,
                               p.pad.size() + p.payload.size() + kSecTagSize - keep);
          if (!refused(short_tag)) return std::fprintf(stderr, "tag %s kept\n", name.c_str()), 1;
          s.write("cut-sectag", ipv6, vlan, name, short_tag);
        }
        // Captured short of its IP length (snaplen): refused before the transport.
        if (s.coin(25)) {
          auto snapped = frame;
          snapped.resize(bth + kBthSize + s.below(headers + 1));
          s.write(secure ? "cut-secure-capture" : "cut-capture", ipv6, vlan, name, snapped);
        }
      }
    }
  }
  // The edges of the Ext rules.
  for (bool ipv6 : {false, true}) {
    // TVer 1 with an opcode table 19.1 does not have (UD SEND ONLY, FLUSH): shown as payload.
    for (uint8_t op : {kOpUdSendOnly, kOpRcFlush, kOpUcSendOnly, uint8_t{0x1b}}) {
      RocePacket p = s.packet(kOpRcSendOnly, false, ipv6, false);
      p.bth.opcode = op;
      p.mxh.reset();
      s.write("edge-unknown", ipv6, false, opcode_name(op), build_frame(p));
      p.bth.resv7 = p.bth.resv7.value() | Bth::kResv7Sx;  // SX on an opcode outside the table
      s.write("edge-unknown-sx", ipv6, false, opcode_name(op), build_frame(p));
    }
    // SX set on a TVer-0 BTH: a reserved bit, no SECH.
    {
      RocePacket p = s.packet(kOpRcSendOnly, false, ipv6, false);
      p.bth.version = 0;
      p.bth.resv7 = p.bth.resv7.value() | Bth::kResv7Sx;
      s.write("edge-tver0-sx", ipv6, false, "RC_SEND_ONLY", build_frame(p));
    }
    // Control packets with payload: refused.
    for (uint8_t op : {kOpExtProbe, kOpExtCredit, kOpExtResync, kOpRcAcknowledge}) {
      for (bool secure : {false, true}) {
        RocePacket p = s.packet(op, secure, ipv6, false);
        const auto extra = s.bytes(1 + s.below(8));
        p.payload = extra;
        const auto frame = build_frame(p);
        if (!refused(frame)) return std::fprintf(stderr, "payload on 0x%02x kept\n", op), 1;
        s.write(secure ? "edge-secure-payload" : "edge-payload", ipv6, false,
                opcode_name(op, HeaderSet::kExt), frame);
      }
    }
    // A secure packet whose pad count reaches past its payload into the tag: refused.
    {
      RocePacket p = s.packet(kOpRcSendOnly, true, ipv6, false);
      p.payload = {};
      p.pad = {};
      p.bth.padcount = 1 + s.below(3);
      const auto frame = build_frame(p);
      if (!refused(frame)) return std::fprintf(stderr, "secure pad kept\n"), 1;
      s.write("edge-secure-pad", ipv6, false, "RC_SEND_ONLY", frame);
    }
    // The SX bit flipped on a plain packet and off on a secure one (ICRC now wrong).
    {
      RocePacket p = s.packet(kOpRcRdmaWriteFirst, false, ipv6, false);
      auto frame = build_frame(p);
      const size_t bth = Ether::kSize + (ipv6 ? Ipv6::kSize : 20) + Udp::kSize;
      frame[bth + 8] ^= Bth::kResv7Sx;
      s.write("edge-sx-flipped", ipv6, false, "RC_RDMA_WRITE_FIRST", frame);
      RocePacket q = s.packet(kOpRcAcknowledge, true, ipv6, false);
      frame = build_frame(q);
      frame[bth + 8] ^= Bth::kResv7Sx;
      s.write("edge-sx-cleared", ipv6, false, "RC_ACKNOWLEDGE", frame);
    }
  }
  std::printf("make_ext_seeds: %d table-19.1 opcodes (plain and secure), %d files in %s\n", opcodes,
              s.written(), out.c_str());
  return 0;
}

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "make_ext_seeds: %s\n", e.what());
    return 2;
  }
}
