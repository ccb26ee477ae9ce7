#include "tools/bench/rc_traffic.h"

#include <array>
#include <vector>

#include "reference/wire/frame_builder.h"
#include "reference/wire/opcode.h"

namespace mr::bench {
namespace {

using wire::RocePacket;

constexpr uint32_t kConnections = 1024;
constexpr uint32_t kPmtu = 256;
constexpr uint64_t kCnpSpacingFrames = 600;
constexpr uint8_t kSendFirst = 0x00, kSendMiddle = 0x01, kSendLast = 0x02, kWriteOnly = 0x0a,
                  kReadRequest = 0x0c, kReadFirst = 0x0d, kReadMiddle = 0x0e, kReadLast = 0x0f,
                  kReadOnly = 0x10, kAtomicAck = 0x12, kFetchAdd = 0x14;

struct Connection {
  wire::Ipv4Address requester;
  wire::Ipv4Address responder;
  uint32_t requester_qpn = 0;
  uint32_t responder_qpn = 0;
  uint16_t requester_sport = 0;
  uint16_t responder_sport = 0;
  uint32_t psn = 0;  // the requester's next PSN
  uint32_t msn = 0;  // the responder's MSN
  uint64_t last_cnp_frame = 0;
  bool cnp_sent = false;
};

class Generator {
 public:
  Generator(uint64_t count, std::mt19937_64& rng, const EmitFrame& emit)
      : count_(count), rng_(rng), emit_(emit) {
    conns_.resize(kConnections);
    for (uint32_t i = 0; i < kConnections; ++i) {
      Connection& c = conns_[i];
      const auto hi = static_cast<uint8_t>(i >> 8);
      const auto lo = static_cast<uint8_t>(i & 0xff);
      c.requester = wire::Ipv4Address{{198, 18, hi, lo}};
      c.responder = wire::Ipv4Address{{198, 19, hi, lo}};
      c.requester_qpn = 0x100 + i;
      c.responder_qpn = 0x10000 + i;
      c.requester_sport = static_cast<uint16_t>(0xc000 | (rng_() & 0x3fff));
      c.responder_sport = static_cast<uint16_t>(0xc000 | (rng_() & 0x3fff));
      c.psn = static_cast<uint32_t>(rng_() & 0xffffff);
    }
  }

  Expected<void, std::string> run() {
    while (written_ < count_ && error_.empty()) operation(conns_[rng_() % kConnections]);
    if (!error_.empty()) return Unexpected(error_);
    return {};
  }

 private:
  RocePacket base(const Connection& c, bool from_requester) {
    RocePacket p;
    p.eth.src = wire::MacAddress{{2, 0, 0, 0, 0, static_cast<uint8_t>(from_requester ? 1 : 2)}};
    p.eth.dst = wire::MacAddress{{2, 0, 0, 0, 0, static_cast<uint8_t>(from_requester ? 2 : 1)}};
    wire::Ipv4 ip;
    ip.src = from_requester ? c.requester : c.responder;
    ip.dst = from_requester ? c.responder : c.requester;
    ip.tos = 0x6a;
    ip.flags = 2;
    ip.id = static_cast<uint16_t>(rng_());
    p.ip = ip;
    p.udp.sport = from_requester ? c.requester_sport : c.responder_sport;
    p.bth.dqpn = from_requester ? c.responder_qpn : c.requester_qpn;
    return p;
  }

  void put(RocePacket& p, size_t payload_len) {
    if (written_ >= count_ || !error_.empty()) return;
    payload_.assign(payload_len, static_cast<uint8_t>(written_));
    p.payload = payload_;
    auto ok = emit_(wire::build_frame(p, {.fill_padding = true}));
    if (!ok) error_ = ok.error();
    ++written_;
  }

  void request(Connection& c, uint8_t op, size_t len, bool ackreq, uint32_t psn) {
    RocePacket p = base(c, true);
    p.bth.opcode = op;
    p.bth.psn = psn;
    p.bth.ackreq = ackreq ? 1 : 0;
    if (op == kWriteOnly)
      p.reth = wire::Reth{0x10000 + rng_() % 4096, 0x77, static_cast<uint32_t>(len)};
    put(p, len);
  }

  void response(Connection& c, uint8_t op, uint32_t psn, uint8_t syndrome, size_t len = 0) {
    RocePacket p = base(c, false);
    p.bth.opcode = op;
    p.bth.psn = psn;
    if (op != kReadMiddle) p.aeth = wire::Aeth{syndrome, c.msn};
    if (op == kAtomicAck) p.atomic_ack_eth = wire::AtomicAckEth{rng_()};
    put(p, len);
  }

  void read(Connection& c, uint32_t dlen) {
    RocePacket p = base(c, true);
    p.bth.opcode = kReadRequest;
    p.bth.psn = c.psn;
    p.bth.ackreq = 1;
    p.reth = wire::Reth{0x20000 + rng_() % 4096, 0x78, dlen};
    put(p, 0);
    const uint32_t first = c.psn;
    const uint32_t packets = dlen <= kPmtu ? 1 : (dlen + kPmtu - 1) / kPmtu;
    c.psn = (c.psn + packets) & 0xffffff;
    ++c.msn;
    if (packets == 1) {
      response(c, kReadOnly, first, 0x1f, dlen);
      return;
    }
    for (uint32_t i = 0; i < packets; ++i) {
      const uint8_t op = i == 0 ? kReadFirst : (i + 1 == packets ? kReadLast : kReadMiddle);
      const uint32_t left = dlen - i * kPmtu;
      response(c, op, (first + i) & 0xffffff, 0x1f, left < kPmtu ? left : kPmtu);
    }
  }

  void operation(Connection& c) {
    const uint64_t pick = rng_() % 100;
    const size_t small = 8 + rng_() % 57;
    if (pick < 30) {  // SEND ONLY and its ACK
      request(c, wire::kOpRcSendOnly, small, true, c.psn);
      ++c.msn;
      response(c, wire::kOpRcAcknowledge, c.psn, 0x1f);
      c.psn = (c.psn + 1) & 0xffffff;
    } else if (pick < 45) {  // WRITE ONLY and its ACK
      request(c, kWriteOnly, small, true, c.psn);
      ++c.msn;
      response(c, wire::kOpRcAcknowledge, c.psn, 0x1f);
      c.psn = (c.psn + 1) & 0xffffff;
    } else if (pick < 60) {
      read(c, static_cast<uint32_t>(small));
    } else if (pick < 70) {
      read(c, 4 * kPmtu);
    } else if (pick < 80) {  // FETCH_ADD and its ATOMIC_ACKNOWLEDGE
      RocePacket p = base(c, true);
      p.bth.opcode = kFetchAdd;
      p.bth.psn = c.psn;
      p.bth.ackreq = 1;
      p.atomic_eth = wire::AtomicEth{0x30000 + 8 * (rng_() % 512), 0x79, 1, 0};
      put(p, 0);
      ++c.msn;
      response(c, kAtomicAck, c.psn, 0x1f);
      c.psn = (c.psn + 1) & 0xffffff;
    } else if (pick < 90) {  // a 3-packet SEND and its ACK
      request(c, kSendFirst, kPmtu, false, c.psn);
      request(c, kSendMiddle, kPmtu, false, (c.psn + 1) & 0xffffff);
      request(c, kSendLast, small, true, (c.psn + 2) & 0xffffff);
      ++c.msn;
      response(c, wire::kOpRcAcknowledge, (c.psn + 2) & 0xffffff, 0x1f);
      c.psn = (c.psn + 3) & 0xffffff;
    } else if (pick < 95 && (!c.cnp_sent || written_ - c.last_cnp_frame >= kCnpSpacingFrames)) {
      RocePacket p = base(c, false);
      p.bth.opcode = wire::kOpCnp;
      p.bth.becn = 1;
      p.cnp_padding = wire::CnpPadding{};
      c.cnp_sent = true;
      c.last_cnp_frame = written_;
      put(p, 0);
    } else {  // PSN e lost after the capture point: e+1 draws NAK(e); both resent; ACK
      const uint32_t e = c.psn;
      const uint32_t next = (e + 1) & 0xffffff;
      request(c, wire::kOpRcSendOnly, small, true, e);
      request(c, wire::kOpRcSendOnly, small, true, next);
      response(c, wire::kOpRcAcknowledge, e, 0x60);
      request(c, wire::kOpRcSendOnly, small, true, e);
      request(c, wire::kOpRcSendOnly, small, true, next);
      c.msn += 2;
      response(c, wire::kOpRcAcknowledge, next, 0x1f);
      c.psn = (e + 2) & 0xffffff;
    }
  }

  uint64_t count_;
  std::mt19937_64& rng_;
  const EmitFrame& emit_;
  std::vector<Connection> conns_;
  std::vector<uint8_t> payload_;
  uint64_t written_ = 0;
  std::string error_;
};

}  // namespace

Expected<void, std::string> write_rc_traffic(uint64_t count, std::mt19937_64& rng,
                                             const EmitFrame& emit) {
  return Generator(count, rng, emit).run();
}

}  // namespace mr::bench
