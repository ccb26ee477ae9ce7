// Writes a synthetic RoCEv2 capture for the benchmarks: N frames of a named traffic mix,
// built with the reference codec (valid lengths and ICRCs), seeded and reproducible.
//
//   synth_capture --mix small|mtu1024|mtu4096 --count 1000000 --seed 1 [--ext] --out FILE.pcapng
//
// small:   the control-sized packets of an RC connection: ACKs, READ requests, atomics,
//          8..64-byte SENDs, CNPs (60..110-byte frames)
// mtu1024: a WRITE/SEND data stream at path MTU 1024 with an ACK every 8 packets
// mtu4096: the same at path MTU 4096
// rc:      conformant RC conversations on 1024 connections, interleaved: SENDs, WRITEs, READs
//          (one and four response packets, PMTU 256), FETCH_ADDs, each with its answer, CNPs,
//          and PSN-sequence NAK recoveries (go-back-N); what `metaroce analyze` should find
//          clean (its benchmark input)
//
// --ext writes the Ext twin of small, mtu1024 or mtu4096: the same frames (same seed, same
// opcodes, payload sizes and field values) as Part II packets, BTH TVer 1 with the headers of
// table 19.1 for their opcode: an MXH after the BTH of every request, a RETH in every RDMA
// WRITE packet, a SACKETH after the AETH of every ACK. CNPs stay TVer 0, as MR-EX-04 has them.
// The Ext header values come from a generator of their own, so the base stream is unchanged.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "reference/io/pcapng_writer.h"
#include "reference/wire/frame_builder.h"
#include "reference/wire/opcode.h"
#include "tools/bench/rc_traffic.h"

namespace {

using mr::wire::RocePacket;

RocePacket base_packet(std::mt19937_64& rng, bool ipv6) {
  RocePacket p;
  p.eth.src = *mr::wire::MacAddress::parse("02:00:00:00:00:01");
  p.eth.dst = *mr::wire::MacAddress::parse("02:00:00:00:00:02");
  if (ipv6) {
    mr::wire::Ipv6 ip;
    ip.src = *mr::wire::Ipv6Address::parse("2001:db8::1");
    ip.dst = *mr::wire::Ipv6Address::parse("2001:db8::2");
    ip.tc = 0x6a;
    p.eth.type = mr::wire::kEtherTypeIpv6;
    p.ip = ip;
  } else {
    mr::wire::Ipv4 ip;
    ip.src = *mr::wire::Ipv4Address::parse("198.18.0.1");
    ip.dst = *mr::wire::Ipv4Address::parse("198.18.0.2");
    ip.tos = 0x6a;
    ip.flags = 2;
    ip.id = static_cast<uint16_t>(rng());
    p.ip = ip;
  }
  p.udp.sport = 0xc000 | (rng() & 0x3fff);
  p.bth.dqpn = 0x11 + (rng() % 64);
  p.bth.psn = rng();
  return p;
}

void small_packet(std::mt19937_64& rng, RocePacket& p, std::vector<uint8_t>& payload) {
  switch (rng() % 6) {
    case 0:
    case 1:
      p.bth.opcode = mr::wire::kOpRcAcknowledge;
      p.aeth = mr::wire::Aeth{0x1f, static_cast<uint32_t>(rng())};
      break;
    case 2:
      p.bth.opcode = 0x0c;  // READ REQUEST
      p.reth = mr::wire::Reth{rng(), static_cast<uint32_t>(rng()), 4096};
      break;
    case 3:
      p.bth.opcode = 0x14;  // FETCH_ADD
      p.atomic_eth = mr::wire::AtomicEth{rng() & ~7ULL, static_cast<uint32_t>(rng()), 1, 0};
      break;
    case 4:
      p.bth.opcode = mr::wire::kOpRcSendOnly;
      payload.assign(8 + rng() % 57, 0x5a);
      break;
    default:
      p.bth.opcode = mr::wire::kOpCnp;
      p.bth.becn = 1;
      p.cnp_padding = mr::wire::CnpPadding{};
      break;
  }
}

void data_packet(uint64_t i, size_t mtu, std::mt19937_64& rng, RocePacket& p,
                 std::vector<uint8_t>& payload) {
  if (i % 9 == 8) {
    p.bth.opcode = mr::wire::kOpRcAcknowledge;
    p.aeth = mr::wire::Aeth{0x1f, static_cast<uint32_t>(i)};
    return;
  }
  static constexpr uint8_t kStream[] = {0x06, 0x07, 0x07, 0x08, 0x00, 0x01, 0x01, 0x02};
  p.bth.opcode = kStream[i % 9 % 8];
  if (p.bth.opcode == 0x06)
    p.reth = mr::wire::Reth{rng(), static_cast<uint32_t>(rng()), static_cast<uint32_t>(4 * mtu)};
  payload.assign(mtu, static_cast<uint8_t>(i));
}

// Turns a base packet into its Ext twin (table 19.1 under TVer 1); CNPs are left as they are.
void make_ext(std::mt19937_64& rng, uint64_t i, RocePacket& p) {
  using namespace mr::wire;
  if (p.bth.opcode == kOpCnp) return;
  p.bth.version = kExtVersion;
  const OpcodeInfo* info = opcode_info(p.bth.opcode, HeaderSet::kExt);
  if (info == nullptr) throw std::runtime_error("opcode without an Ext form in the mix");
  if (info->has(kMxh)) {
    auto& m = p.mxh.emplace();
    m.plane = rng() % 4;
    m.ev = static_cast<uint16_t>(rng());
    m.msn = i / 8;
    m.rqsn = i / 8;
    m.offset = static_cast<uint32_t>(i % 8 * p.payload.size());
    m.tsv = 1;
    m.tx_timestamp = static_cast<uint32_t>(rng());
  }
  if (info->has(kReth) && !p.reth) {
    p.reth = Reth{rng(), static_cast<uint32_t>(rng()), static_cast<uint32_t>(8 * p.payload.size())};
  }
  if (info->has(kSacketh)) {
    auto& s = p.sacketh.emplace();
    s.sack_ref = (p.bth.psn.value() + 1) & ~7u;
    s.bitmap = rng();
    s.ev_echo = static_cast<uint16_t>(rng());
    s.mpr = 8;
    s.tse = 1;
    s.ts_echo = static_cast<uint32_t>(rng());
  }
}

}  // namespace

int run(int argc, char** argv) {
  CLI::App app{"synthetic RoCEv2 capture for the benchmarks"};
  std::string mix = "small";
  std::string out;
  uint64_t count = 1000000;
  uint64_t seed = 1;
  bool ipv6 = false;
  bool ext = false;
  app.add_option("--mix", mix, "small | mtu1024 | mtu4096 | rc")
      ->check(CLI::IsMember({"small", "mtu1024", "mtu4096", "rc"}));
  app.add_option("--count", count, "frames to write");
  app.add_option("--seed", seed, "random seed");
  app.add_flag("--ipv6", ipv6, "IPv6 instead of IPv4");
  app.add_flag("--ext", ext, "the Ext twin: TVer 1, the headers of table 19.1 (not with rc)");
  app.add_option("--out", out, "output pcapng")->required();
  CLI11_PARSE(app, argc, argv);

  if (ext && mix == "rc") {
    std::fprintf(stderr, "synth_capture: --ext is for small, mtu1024 and mtu4096\n");
    return 2;
  }
  std::printf("synth_capture: mix %s%s, %llu frames, seed %llu -> %s\n", mix.c_str(),
              ext ? " (Ext twin)" : "", static_cast<unsigned long long>(count),
              static_cast<unsigned long long>(seed), out.c_str());
  auto writer = mr::io::PcapngWriter::create(out, "metaroce synth_capture");
  if (!writer) {
    std::fprintf(stderr, "synth_capture: %s\n", writer.error().c_str());
    return 2;
  }
  std::mt19937_64 rng(seed);
  std::mt19937_64 ext_rng(seed ^ 0x4d78);  // the Ext headers' own stream
  std::vector<uint8_t> payload;
  uint64_t t = 1'700'000'000'000'000'000ULL;
  if (mix == "rc") {
    auto ok = mr::bench::write_rc_traffic(count, rng, [&](std::span<const uint8_t> frame) {
      t += 100 + rng() % 1000;
      return writer->write(frame, t);
    });
    if (!ok) {
      std::fprintf(stderr, "synth_capture: %s\n", ok.error().c_str());
      return 2;
    }
    count = 0;  // written
  }
  for (uint64_t i = 0; i < count; ++i) {
    RocePacket p = base_packet(rng, ipv6);
    payload.clear();
    if (mix == "small") {
      small_packet(rng, p, payload);
    } else {
      data_packet(i, mix == "mtu1024" ? 1024 : 4096, rng, p, payload);
    }
    p.payload = payload;
    if (ext) make_ext(ext_rng, i, p);
    const auto frame = mr::wire::build_frame(p, {.fill_padding = true});
    t += 100 + rng() % 1000;
    if (auto ok = writer->write(frame, t); !ok) {
      std::fprintf(stderr, "synth_capture: %s\n", ok.error().c_str());
      return 2;
    }
  }
  if (auto ok = writer->close(); !ok) {
    std::fprintf(stderr, "synth_capture: %s\n", ok.error().c_str());
    return 2;
  }
  return 0;
}

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "synth_capture: %s\n", e.what());
    return 2;
  }
}
