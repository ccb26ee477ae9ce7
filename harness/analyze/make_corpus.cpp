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
#include "reference/wire/frame_builder.h"
#include "reference/wire/opcode.h"

namespace {

using mr::wire::RocePacket;

constexpr uint8_t kSendFirst = 0x00, kSendMiddle = 0x01, kSendLast = 0x02, kSendOnly = 0x04;
constexpr uint8_t kWriteFirst = 0x06, kWriteMiddle = 0x07, kWriteOnly = 0x0a;
constexpr uint8_t kReadRequest = 0x0c, kReadFirst = 0x0d, kReadMiddle = 0x0e, kReadLast = 0x0f,
                  kReadOnly = 0x10, kAck = 0x11, kAtomicAck = 0x12, kFetchAdd = 0x14;

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
  if (op == kWriteFirst || op == kWriteOnly) f.p.reth = mr::wire::Reth{0x1000, 0x77, 4096};
  return f;
}
Frame read_request(uint32_t psn, uint32_t dlen) {
  Frame f = request(kReadRequest, psn, 0, true);
  f.p.reth = mr::wire::Reth{0x2000, 0x77, dlen};
  return f;
}
Frame fetch_add(uint32_t psn) {
  Frame f = request(kFetchAdd, psn, 0, true);
  f.p.atomic_eth = mr::wire::AtomicEth{0x3000, 0x77, 1, 0};
  return f;
}
Frame response(uint8_t op, uint32_t psn, uint8_t syndrome, uint32_t msn, size_t len = 0) {
  Frame f{base(false)};
  f.p.bth.opcode = op;
  f.p.bth.psn = psn;
  if (op != kReadMiddle) f.p.aeth = mr::wire::Aeth{syndrome, msn};
  if (op == kAtomicAck) f.p.atomic_ack_eth = mr::wire::AtomicAckEth{41};
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
  return {request(kSendFirst, 0x100, 1024, false),
          request(kSendMiddle, 0x101, 1024, false),
          request(kSendLast, 0x102, 100, true),
          response(kAck, 0x102, 0x1f, 1),
          read_request(0x103, 2048),
          response(kReadFirst, 0x103, 0x1f, 2, 1024),
          response(kReadLast, 0x104, 0x1f, 2, 1024),
          fetch_add(0x105),
          response(kAtomicAck, 0x105, 0x1f, 3),
          request(kWriteOnly, 0x106, 64, true),
          response(kAck, 0x106, 0x1f, 4),
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
      {"wf02-tver", [] { return with(clean(), [](auto& v) { v[9].p.bth.version = 1; }); }},
      {"wf04-reserved", [] { return with(clean(), [](auto& v) { v[9].p.bth.resv7 = 1; }); }},
      {"wf06-padding",
       [] {
         return with(clean(), [](auto& v) {
           v[9].payload.resize(63);
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
           v.insert(v.end(), {request(kWriteFirst, 0x107, 1024, false),
                              request(kWriteMiddle, 0x108, 512, false)});
         });
       }},
      {"ps01-psn-gap", [] { return with(clean(), [](auto& v) { v[9].p.bth.psn = 0x108; }); }},
      {"ps02-read-psns",
       [] {
         return with(clean(), [](auto& v) {
           v.push_back(read_request(0x107, 4096));  // 4 PSNs at PMTU 1024
           v.push_back(request(kSendOnly, 0x108, 8, true));
         });
       }},
      {"ps11-unacked-window",
       [] {
         // PMTU 256 (the SEND's FIRST), then a READ of 2^23 - 1 packets: 2^23 - 1 PSNs
         // unacknowledged, and the SEND behind it makes 2^23.
         return std::vector<Frame>{request(kSendFirst, 0x100, 256, false),
                                   request(kSendLast, 0x101, 100, true),
                                   response(kAck, 0x101, 0x1f, 1), read_request(0x102, 0x7fffff00),
                                   request(kSendOnly, 0x102 + 0x7fffff, 8, true)};
       }},
      {"ps05-second-nak",
       [] {
         return std::vector<Frame>{
             request(kSendOnly, 0x100, 8, true), response(kAck, 0x100, 0x1f, 1),
             request(kSendOnly, 0x101, 8, true),  // lost after the tap
             request(kSendOnly, 0x102, 8, true), response(kAck, 0x101, 0x60, 1),
             request(kSendOnly, 0x103, 8, true), response(kAck, 0x101, 0x60, 1)};
       }},
      {"ps04-nak-psn",
       [] {
         return std::vector<Frame>{request(kSendOnly, 0x100, 8, true),
                                   request(kSendOnly, 0x101, 8, true),
                                   response(kAck, 0x105, 0x60, 0)};
       }},
      {"ak02-ack-ahead", [] { return with(clean(), [](auto& v) { v[3].p.bth.psn = 0x150; }); }},
      {"ak03-msn-back", [] { return with(clean(), [](auto& v) { v[10].p.aeth->msn = 1; }); }},
      {"ak05-ackreq", [] { return with(clean(), [](auto& v) { v[2].p.bth.ackreq = 0; }); }},
      {"ak07-syndrome",
       [] { return with(clean(), [](auto& v) { v[10].p.aeth->syndrome = 0x41; }); }},
      {"ak11-duplicate-ack",
       [] {
         return with(clean(), [](auto& v) {
           v.push_back(request(kWriteOnly, 0x106, 64, true));  // duplicate
           v.push_back(response(kAck, 0x106 - 4, 0x1f, 4));    // answered with an old PSN
         });
       }},
      {"ak14-ack-format", [] { return with(clean(), [](auto& v) { v[3].p.bth.solicited = 1; }); }},
      {"rd01-read-segmentation",
       [] {
         return with(clean(), [](auto& v) {
           v[5].p.bth.opcode = kReadOnly;  // a 2048-byte READ answered with ONLY, then LAST
         });
       }},
      {"rd02-read-psn", [] { return with(clean(), [](auto& v) { v[6].p.bth.psn = 0x105; }); }},
      {"rd03-read-aeth",
       [] { return with(clean(), [](auto& v) { v[6].p.aeth->syndrome = 0x61; }); }},
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
