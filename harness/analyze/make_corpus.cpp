// Writes the planted-violation corpus of pcaps/analyze/: one clean RC exchange and one
// capture per violation kind, built with the reference codec (correct lengths and ICRCs
// unless the plant says otherwise). Run from the repository root:
//   bazel run //harness/analyze:make_corpus -- $PWD/pcaps/analyze
// then refresh the expected outputs (pcaps/analyze/README.md).
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "reference/io/pcapng_writer.h"
#include "reference/wire/aeth_syndrome.h"
#include "reference/wire/frame_builder.h"
#include "reference/wire/opcode.h"

namespace {

using mr::wire::kNakInvalidRequest;
using mr::wire::kNakPsnSequenceError;
using mr::wire::kOpRcAcknowledge;
using mr::wire::kOpRcAtomicAcknowledge;
using mr::wire::kOpRcFetchAdd;
using mr::wire::kOpRcRdmaReadRequest;
using mr::wire::kOpRcRdmaReadResponseFirst;
using mr::wire::kOpRcRdmaReadResponseLast;
using mr::wire::kOpRcRdmaReadResponseMiddle;
using mr::wire::kOpRcRdmaReadResponseOnly;
using mr::wire::kOpRcRdmaWriteFirst;
using mr::wire::kOpRcRdmaWriteMiddle;
using mr::wire::kOpRcRdmaWriteOnly;
using mr::wire::kOpRcSendFirst;
using mr::wire::kOpRcSendLast;
using mr::wire::kOpRcSendMiddle;
using mr::wire::kOpRcSendOnly;
using mr::wire::kSyndromeAck;
using mr::wire::RocePacket;

// Type 10: reserved, no meaning in base mode (MR-AK-07's plant).
constexpr uint8_t kReservedSyndrome = 0x41;

struct Frame {
  RocePacket p;
  std::vector<uint8_t> payload;
  mr::wire::BuildOptions options{.fill_padding = true};
  uint64_t gap_ns = 2000;
};

// The requester 198.18.0.2 (QPN 0x11) talks to the responder 198.18.0.1 (QPN 0x123).
RocePacket base(bool from_requester) {
  RocePacket p;
  mr::wire::Ipv4 ip;
  ip.src = *mr::wire::Ipv4Address::parse(from_requester ? "198.18.0.2" : "198.18.0.1");
  ip.dst = *mr::wire::Ipv4Address::parse(from_requester ? "198.18.0.1" : "198.18.0.2");
  ip.flags = 2;
  p.ip = ip;
  p.udp.sport = from_requester ? 0xc001 : 0xc002;
  p.bth.dqpn = from_requester ? 0x123 : 0x11;
  return p;
}

Frame request(uint8_t op, uint32_t psn, size_t len, bool ackreq) {
  Frame f{base(true)};
  f.p.bth.opcode = op;
  f.p.bth.psn = psn;
  f.p.bth.ackreq = ackreq ? 1 : 0;
  f.payload.assign(len, 0x5a);
  // An ONLY carries its whole DMA length (MR-MP-07); a FIRST opens a 4 KiB WRITE.
  if (op == kOpRcRdmaWriteOnly) f.p.reth = mr::wire::Reth{0x1000, 0x77, static_cast<uint32_t>(len)};
  if (op == kOpRcRdmaWriteFirst) f.p.reth = mr::wire::Reth{0x1000, 0x77, 4096};
  return f;
}
Frame read_request(uint32_t psn, uint32_t dlen) {
  Frame f = request(kOpRcRdmaReadRequest, psn, 0, true);
  f.p.reth = mr::wire::Reth{0x2000, 0x77, dlen};
  return f;
}
Frame fetch_add(uint32_t psn) {
  Frame f = request(kOpRcFetchAdd, psn, 0, true);
  f.p.atomic_eth = mr::wire::AtomicEth{0x3000, 0x77, 1, 0};
  return f;
}
Frame response(uint8_t op, uint32_t psn, uint8_t syndrome, uint32_t msn, size_t len = 0) {
  Frame f{base(false)};
  f.p.bth.opcode = op;
  f.p.bth.psn = psn;
  if (op != kOpRcRdmaReadResponseMiddle) f.p.aeth = mr::wire::Aeth{syndrome, msn};
  if (op == kOpRcAtomicAcknowledge) f.p.atomic_ack_eth = mr::wire::AtomicAckEth{41};
  f.payload.assign(len, 0xa5);
  return f;
}
Frame cnp(uint64_t gap_ns) {
  Frame f{base(false)};
  f.p.bth.opcode = mr::wire::kOpCnp;
  f.p.bth.becn = 1;
  f.p.cnp_padding = mr::wire::CnpPadding{};
  f.gap_ns = gap_ns;
  return f;
}

// SEND of 3 packets, ACK, READ 2048 (2 PSNs) and its responses, FETCH_ADD and its ACK,
// WRITE ONLY and its ACK, two CNPs 100 us apart: the exchange every plant starts from.
std::vector<Frame> clean() {
  return {request(kOpRcSendFirst, 0x100, 1024, false),
          request(kOpRcSendMiddle, 0x101, 1024, false),
          request(kOpRcSendLast, 0x102, 100, true),
          response(kOpRcAcknowledge, 0x102, kSyndromeAck, 1),
          read_request(0x103, 2048),
          response(kOpRcRdmaReadResponseFirst, 0x103, kSyndromeAck, 2, 1024),
          response(kOpRcRdmaReadResponseLast, 0x104, kSyndromeAck, 2, 1024),
          fetch_add(0x105),
          response(kOpRcAtomicAcknowledge, 0x105, kSyndromeAck, 3),
          request(kOpRcRdmaWriteOnly, 0x106, 64, true),
          response(kOpRcAcknowledge, 0x106, kSyndromeAck, 4),
          cnp(10000),
          cnp(100000)};
}

struct Plant {
  const char* name;
  std::function<std::vector<Frame>()> frames;
};

std::vector<Frame> with(std::vector<Frame> v, const std::function<void(std::vector<Frame>&)>& f) {
  f(v);
  return v;
}

const std::vector<Plant>& plants() {
  static const std::vector<Plant> kPlants{
      {"clean", clean},
      {"wf02-tver", [] { return with(clean(), [](auto& v) { v[9].p.bth.version = 2; }); }},
      {"wf04-reserved", [] { return with(clean(), [](auto& v) { v[9].p.bth.resv7 = 1; }); }},
      {"wf06-padding",
       [] {
         return with(clean(), [](auto& v) {
           v[9].payload.resize(63);
           v[9].p.reth->dlen = 63;             // the WRITE's length stays right (MR-MP-07)
           v[9].options.fill_padding = false;  // PadCnt stays 0 for a 63-byte payload
         });
       }},
      {"wf08-udp-port", [] { return with(clean(), [](auto& v) { v[4].p.udp.sport = 0xc0ff; }); }},
      {"ic01-icrc",
       [] {
         return with(clean(), [](auto& v) {
           v[3].options.fill_icrc = false;
           v[3].p.icrc = 0xdeadbeef;
         });
       }},
      {"mp07-write-size",
       [] {
         return with(clean(), [](auto& v) {
           v.insert(v.end(), {request(kOpRcRdmaWriteFirst, 0x107, 1024, false),
                              request(kOpRcRdmaWriteMiddle, 0x108, 512, false)});
         });
       }},
      {"ps01-psn-gap", [] { return with(clean(), [](auto& v) { v[9].p.bth.psn = 0x108; }); }},
      {"ps02-read-psns",
       [] {
         return with(clean(), [](auto& v) {
           v.push_back(read_request(0x107, 4096));  // 4 PSNs at PMTU 1024
           v.push_back(request(kOpRcSendOnly, 0x108, 8, true));
         });
       }},
      {"ps11-unacked-window",
       [] {
         // PMTU 256 (the SEND's FIRST), then a READ of 2^23 - 1 packets: 2^23 - 1 PSNs
         // unacknowledged, and the SEND behind it makes 2^23.
         return std::vector<Frame>{
             request(kOpRcSendFirst, 0x100, 256, false), request(kOpRcSendLast, 0x101, 100, true),
             response(kOpRcAcknowledge, 0x101, kSyndromeAck, 1), read_request(0x102, 0x7fffff00),
             request(kOpRcSendOnly, 0x102 + 0x7fffff, 8, true)};
       }},
      {"ps05-second-nak",
       [] {
         return std::vector<Frame>{request(kOpRcSendOnly, 0x100, 8, true),
                                   response(kOpRcAcknowledge, 0x100, kSyndromeAck, 1),
                                   request(kOpRcSendOnly, 0x101, 8, true),  // lost after the tap
                                   request(kOpRcSendOnly, 0x102, 8, true),
                                   response(kOpRcAcknowledge, 0x101, kNakPsnSequenceError, 1),
                                   request(kOpRcSendOnly, 0x103, 8, true),
                                   response(kOpRcAcknowledge, 0x101, kNakPsnSequenceError, 1)};
       }},
      {"ps04-nak-psn",
       [] {
         return std::vector<Frame>{request(kOpRcSendOnly, 0x100, 8, true),
                                   request(kOpRcSendOnly, 0x101, 8, true),
                                   response(kOpRcAcknowledge, 0x105, kNakPsnSequenceError, 0)};
       }},
      {"ak02-ack-ahead", [] { return with(clean(), [](auto& v) { v[3].p.bth.psn = 0x150; }); }},
      {"ak03-msn-back", [] { return with(clean(), [](auto& v) { v[10].p.aeth->msn = 1; }); }},
      {"ak05-ackreq", [] { return with(clean(), [](auto& v) { v[2].p.bth.ackreq = 0; }); }},
      {"ak07-syndrome",
       [] { return with(clean(), [](auto& v) { v[10].p.aeth->syndrome = kReservedSyndrome; }); }},
      {"ak11-duplicate-ack",
       [] {
         return with(clean(), [](auto& v) {
           // A duplicate, answered with an old PSN.
           v.push_back(request(kOpRcRdmaWriteOnly, 0x106, 64, true));
           v.push_back(response(kOpRcAcknowledge, 0x106 - 4, kSyndromeAck, 4));
         });
       }},
      {"ak14-ack-format", [] { return with(clean(), [](auto& v) { v[3].p.bth.solicited = 1; }); }},
      {"rd01-read-segmentation",
       [] {
         return with(clean(), [](auto& v) {
           // A 2048-byte READ answered with ONLY, then LAST.
           v[5].p.bth.opcode = kOpRcRdmaReadResponseOnly;
         });
       }},
      {"rd02-read-psn", [] { return with(clean(), [](auto& v) { v[6].p.bth.psn = 0x105; }); }},
      {"rd03-read-aeth",
       [] { return with(clean(), [](auto& v) { v[6].p.aeth->syndrome = kNakInvalidRequest; }); }},
      {"at06-atomic-psn", [] { return with(clean(), [](auto& v) { v[8].p.bth.psn = 0x104; }); }},
      {"cc01-cnp-format", [] { return with(clean(), [](auto& v) { v[11].p.bth.psn = 7; }); }},
      {"cc03-cnp-pacing", [] { return with(clean(), [](auto& v) { v[12].gap_ns = 20000; }); }},
  };
  return kPlants;
}

int write(const std::string& path, const std::vector<Frame>& frames) {
  auto w = mr::io::PcapngWriter::create(path, "metaroce make_corpus");
  if (!w) {
    std::fprintf(stderr, "make_corpus: %s\n", w.error().c_str());
    return 2;
  }
  uint64_t t = 1'700'000'000'000'000'000ULL;
  for (const Frame& f : frames) {
    RocePacket p = f.p;
    p.payload = f.payload;
    t += f.gap_ns;
    if (auto ok = w->write(mr::wire::build_frame(p, f.options), t); !ok) {
      std::fprintf(stderr, "make_corpus: %s\n", ok.error().c_str());
      return 2;
    }
  }
  return w->close() ? 0 : 2;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string dir = argc > 1 ? argv[1] : "pcaps/analyze";
  for (const Plant& plant : plants()) {
    if (int rc = write(dir + "/" + plant.name + ".pcapng", plant.frames()); rc != 0) return rc;
  }
  // A capture cut short in the middle of a block: analysis before it, then the error.
  const std::string clean_path = dir + "/clean.pcapng";
  std::FILE* in = std::fopen(clean_path.c_str(), "rb");
  if (!in) return 2;
  std::vector<uint8_t> bytes(1 << 16);
  bytes.resize(std::fread(bytes.data(), 1, bytes.size(), in));
  std::fclose(in);
  bytes.resize(bytes.size() - 37);
  std::FILE* out = std::fopen((dir + "/truncated.pcapng").c_str(), "wb");
  if (!out) return 2;
  std::fwrite(bytes.data(), 1, bytes.size(), out);
  std::fclose(out);
  std::printf("make_corpus: %zu captures in %s\n", plants().size() + 1, dir.c_str());
  return 0;
}
