// Each checker on crafted packets: a clean packet sequence reports nothing, one planted
// fault reports exactly its clause (the analyzer runs the whole checker table).
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "harness/analyze/analyzer.h"
#include "harness/analyze/checker_table.h"
#include "harness/analyze/flow.h"
#include "reference/wire/aeth_syndrome.h"
#include "reference/wire/frame_builder.h"
#include "reference/wire/opcode.h"
#include "reference/wire/psn.h"

namespace mr::analyze {
namespace {

using wire::RocePacket;

// Type 10: no syndrome of that type has a meaning (MR-AK-07 reports it).
constexpr uint8_t kReservedSyndrome = 0x45;

RocePacket packet(bool from_requester, uint8_t op, uint32_t psn) {
  RocePacket p;
  wire::Ipv4 ip;
  ip.src = *wire::Ipv4Address::parse(from_requester ? "10.0.0.2" : "10.0.0.1");
  ip.dst = *wire::Ipv4Address::parse(from_requester ? "10.0.0.1" : "10.0.0.2");
  p.ip = ip;
  p.udp.sport = from_requester ? 0xc001 : 0xc002;
  p.bth.dqpn = from_requester ? 0x123 : 0x11;
  p.bth.opcode = op;
  p.bth.psn = psn;
  return p;
}
RocePacket send_only(uint32_t psn) {
  RocePacket p = packet(true, wire::kOpRcSendOnly, psn);
  p.bth.ackreq = 1;
  return p;
}
RocePacket ack(uint32_t psn, uint8_t syndrome = wire::kSyndromeAck, uint32_t msn = 1) {
  RocePacket p = packet(false, wire::kOpRcAcknowledge, psn);
  p.aeth = wire::Aeth{syndrome, msn};
  return p;
}
// A READ request (AckReq set), and a READ response (an AETH on all but MIDDLE).
RocePacket read_request(uint32_t psn, uint64_t va, uint32_t dlen) {
  RocePacket p = packet(true, wire::kOpRcRdmaReadRequest, psn);
  p.bth.ackreq = 1;
  p.reth = wire::Reth{va, 7, dlen};
  return p;
}
RocePacket read_response(uint8_t op, uint32_t psn, uint8_t syndrome = wire::kSyndromeAck) {
  RocePacket p = packet(false, op, psn);
  if (op != wire::kOpRcRdmaReadResponseMiddle) p.aeth = wire::Aeth{syndrome, 1};
  return p;
}

struct Trace {
  explicit Trace(AnalyzerOptions options = {})
      : a([this](const Violation& v) { found.push_back(v); }, options) {}
  std::vector<Violation> found;
  Analyzer a;
  uint64_t t = 1000;
  void add(const RocePacket& p, std::vector<uint8_t> payload = {}, bool fill_icrc = true,
           uint64_t gap = 1000) {
    RocePacket q = p;
    q.payload = payload;
    t += gap;
    a.add_bytes(wire::build_frame(q, {.fill_padding = true, .fill_icrc = fill_icrc}), t);
  }
  std::vector<std::string> clauses() const {
    std::vector<std::string> c;
    for (const auto& v : found) c.emplace_back(v.clause);
    return c;
  }
};

using Clauses = std::vector<std::string>;

TEST(Checkers, TableHasEveryChecker) { EXPECT_EQ(checker_table().size(), 25u); }

// A packet of opcode `op` as the decoder gives it (extended headers exactly those the
// opcode has) with as many fields wrong as one packet can hold, in a direction whose state
// provokes every stateful rule; `syndrome` for its AETH.
struct Provocation {
  wire::DecodedRoce decoded;
  Direction dir;
  Direction peer;
  uint64_t time_ns = 1'000'000;

  // `ext`: an Ext packet (TVer 1, table 19.1's headers) whose MXH EV is not its UDP port.
  Provocation(uint8_t op, uint8_t syndrome, bool in_sequence, bool ext = false) {
    const uint32_t psn = 0x100;
    wire::RocePacket& p = decoded.packet;
    p.bth.opcode = op;
    p.bth.version = ext ? wire::kExtVersion : 2;  // 2 is reserved (judged by MR-WF-02)
    p.bth.resv6 = 1;
    p.bth.resv7 = 1;
    p.bth.fecn = 1;
    p.bth.solicited = 1;
    p.bth.padcount = 1;  // wrong for the 1-byte payload below (3)
    p.bth.psn = psn;
    p.udp.sport = 2;
    const wire::OpcodeInfo* info =
        wire::opcode_info(op, ext ? wire::HeaderSet::kExt : wire::HeaderSet::kBase);
    decoded.opcode_known = info != nullptr;
    if (info && info->has(wire::kMxh)) p.mxh = wire::Mxh{.ev = 3};
    if (info && info->has(wire::kAeth)) p.aeth = wire::Aeth{syndrome, 50};
    if (info && info->has(wire::kReth)) p.reth = wire::Reth{0x1000, 7, 100000};
    if (info && info->has(wire::kAtomicEth)) p.atomic_eth = wire::AtomicEth{};
    if (info && info->has(wire::kAtomicAckEth)) p.atomic_ack_eth = wire::AtomicAckEth{};
    if (info && info->has(wire::kSacketh)) p.sacketh = wire::Sacketh{};  // MPR 0 (MR-SA-09)
    if (info && info->is(wire::kPayload)) p.payload = payload_;
    p.pad = pad_;
    decoded.icrc_computed = p.icrc.value() + 1;
    dir.peer = &peer;
    peer.peer = &dir;
    dir.sport_known = true;
    dir.sport = 1;
    // Requests: PSN 0x100 skips 5 after the expected one, or (in sequence) makes exactly
    // 2^23 PSNs unacknowledged.
    dir.req.started = true;
    dir.req.next_psn_known = true;
    dir.req.next_psn = in_sequence ? psn : psn - 5;
    dir.req.first_psn = psn;
    peer.resp.acked = true;
    peer.resp.last_ack_psn = wire::psn_add(psn, -static_cast<int32_t>((1U << 23) - 1) - 1);
    // Responses: the MSN goes back, a NAK repeats, the ACK runs ahead of the requests,
    // answers a duplicate behind ePSN - 1, a READ response has no FIRST, a CNP comes 1 ns
    // after the last.
    dir.resp.msn_seen = true;
    dir.resp.msn = 100;
    dir.resp.nak_open = true;
    dir.resp.nak_psn = psn + 10;
    dir.resp.duplicate_pending = true;
    dir.resp.acked = true;
    dir.resp.last_ack_psn = psn + 5;
    dir.resp.cnp_seen = true;
    dir.resp.last_cnp_ns = time_ns - 1;
    peer.req.started = true;
    peer.req.next_psn_known = true;
    peer.req.next_psn = psn - 20;
  }

 private:
  std::vector<uint8_t> payload_{0xaa};
  std::vector<uint8_t> pad_{0x55};
};

class CountingSink final : public ViolationSink {
 public:
  void report(const PacketContext&, std::string_view, std::string) override { ++reports; }
  int reports = 0;
};

// CheckerEntry::runs_on only saves calls: on every opcode it leaves out, its checker reports
// nothing even on a packet with every field wrong in a state that provokes every rule; and
// on the opcodes it keeps, the same provocation makes the checker report, so this is not a
// test of checkers that never report.
TEST(Checkers, RunsOnLeavesOutOnlyPacketsItsCheckerCannotReportOn) {
  for (const CheckerEntry& e : checker_table()) {
    if (!e.runs_on) continue;
    const auto checker = e.make();
    int kept_reports = 0;
    // Ext checkers judge Ext packets: their opcodes' headers are table 19.1's.
    const bool ext = e.scope == HeaderScope::kExt;
    for (int op = 0; op < 256; ++op) {
      const wire::OpcodeInfo* info = wire::opcode_info(
          static_cast<uint8_t>(op), ext ? wire::HeaderSet::kExt : wire::HeaderSet::kBase);
      for (const uint8_t syndrome : {wire::ack(0), kReservedSyndrome, wire::kNakPsnSequenceError,
                                     wire::rnr_nak(0), wire::kNakPsnOutOfWindow}) {
        for (const bool in_sequence : {false, true}) {
          Provocation v(static_cast<uint8_t>(op), syndrome, in_sequence, ext);
          const PacketContext c{7, v.time_ns, v.decoded, v.decoded.packet, info, v.dir, false};
          CountingSink sink;
          checker->check(c, sink);
          if (e.runs_on(info)) {
            kept_reports += sink.reports;
          } else {
            EXPECT_EQ(sink.reports, 0) << e.name << " left out opcode " << op << " syndrome "
                                       << int{syndrome} << " in sequence " << in_sequence;
          }
        }
      }
    }
    EXPECT_GT(kept_reports, 0) << e.name << " reported on none of the opcodes it runs on";
  }
}

TEST(Checkers, CleanSendAndAckReportNothing) {
  Trace r;
  r.add(send_only(5), {1, 2, 3});
  r.add(ack(5));
  r.add(send_only(6));
  r.add(ack(6, wire::kSyndromeAck, 2));
  EXPECT_EQ(r.clauses(), Clauses{});
}

TEST(Checkers, VersionAndReservedBits) {
  Trace r;
  RocePacket p = send_only(5);
  p.bth.version = 2;
  p.bth.resv7 = 1;
  r.add(p);
  EXPECT_EQ(r.clauses(), (Clauses{"MR-WF-02", "MR-WF-04"}));
}

TEST(Checkers, BadIcrcIsItsSendersViolation) {
  Trace r;
  r.add(send_only(5), {}, false);
  ASSERT_EQ(r.clauses(), Clauses{"MR-IC-01"});
  EXPECT_EQ(r.found[0].sender, "10.0.0.2");
  EXPECT_EQ(r.found[0].flow, "10.0.0.2->10.0.0.1 qp 0x000123");
}

TEST(Checkers, UdpSourcePortChange) {
  Trace r;
  r.add(send_only(5));
  RocePacket p = send_only(6);
  p.udp.sport = 0xc00f;
  r.add(p);
  EXPECT_EQ(r.clauses(), Clauses{"MR-WF-08"});
}

// Section 20.2: an Ext packet's UDP source port is its EV, which may change from packet to
// packet (multipath) or when an entry becomes unusable.
TEST(Checkers, AnExtPacketsSourcePortIsItsEvAndMayChange) {
  Trace r;
  r.add(send_only(5));
  RocePacket p = send_only(6);
  p.bth.version = wire::kExtVersion;
  p.mxh = wire::Mxh{};
  p.mxh->ev = 0xc00f;
  p.udp.sport = 0xc00f;
  r.add(p);
  EXPECT_EQ(r.clauses(), Clauses{});
}

// MR-MU-02: over IPv4 an Ext packet's port is its MXH EV (EV mode UDP, the only one there).
TEST(Checkers, AnExtPacketsSourcePortMustBeItsMxhEv) {
  Trace r;
  RocePacket p = send_only(6);
  p.bth.version = wire::kExtVersion;
  p.mxh = wire::Mxh{};
  p.mxh->ev = 0xc00f;
  p.udp.sport = 0xc001;
  r.add(p);
  EXPECT_EQ(r.clauses(), Clauses{"MR-MU-02"});
}

// MR-MU-03: over IPv6 in EV mode FLOW the flow label is (plane << 16) | EV and the port its
// fold; a port that is neither the EV nor that fold breaks it.
TEST(Checkers, AnIpv6ExtPacketMayCarryItsEvInTheFlowLabel) {
  auto v6_ext = [](uint16_t sport, uint32_t fl, uint32_t psn) {
    RocePacket p = send_only(psn);
    wire::Ipv6 ip;
    ip.src = *wire::Ipv6Address::parse("2001:db8::2");
    ip.dst = *wire::Ipv6Address::parse("2001:db8::1");
    ip.fl = fl;
    p.ip = ip;
    p.eth.type = wire::kEtherTypeIpv6;
    p.bth.version = wire::kExtVersion;
    p.mxh = wire::Mxh{};
    p.mxh->plane = 2;
    p.mxh->ev = 0x1234;
    p.udp.sport = sport;
    return p;
  };
  const uint32_t fl = (2U << 16) | 0x1234;
  const auto fold = static_cast<uint16_t>(0xC000 | ((fl & 0x3FFF) ^ (fl >> 14)));
  Trace good;
  good.add(v6_ext(fold, fl, 6));
  good.add(v6_ext(0x1234, 0, 7));  // EV mode UDP over IPv6
  EXPECT_EQ(good.clauses(), Clauses{});
  Trace bad;
  bad.add(v6_ext(static_cast<uint16_t>(fold ^ 1), fl, 6));
  bad.add(v6_ext(0x4321, 0, 7));
  EXPECT_EQ(bad.clauses(), (Clauses{"MR-MU-03", "MR-MU-02"}));
}

// MR-NK-01: NAK 0x65 to 0x67 only in an Ext RC_ACKNOWLEDGE.
TEST(Checkers, ExtensionNaksOnlyInExtAcknowledges) {
  Trace r;
  r.add(send_only(5));
  r.add(ack(5, 0x67));  // a base-mode ACK with an extension NAK
  EXPECT_EQ(r.clauses(), (Clauses{"MR-AK-07", "MR-NK-01"}));
}

TEST(Checkers, PsnGapAndRetransmission) {
  Trace r;
  r.add(send_only(5));
  r.add(send_only(6));
  r.add(send_only(5));  // a retransmission: allowed
  r.add(send_only(9));  // skips 7 and 8
  EXPECT_EQ(r.clauses(), Clauses{"MR-PS-01"});
}

TEST(Checkers, MissingAckReq) {
  Trace r;
  RocePacket p = send_only(5);
  p.bth.ackreq = 0;
  r.add(p);
  EXPECT_EQ(r.clauses(), Clauses{"MR-AK-05"});
}

// UC and UD requests are never acknowledged: AckReq 0 on their last packet is right.
TEST(Checkers, UnacknowledgedTransportsEndMessagesWithoutAckReq) {
  for (uint8_t opcode : {wire::kOpUcSendOnly, wire::kOpUcRdmaWriteOnly, wire::kOpUdSendOnly}) {
    Trace r;
    RocePacket p = send_only(5);
    p.bth.opcode = opcode;
    p.bth.ackreq = 0;
    r.add(p);
    for (const auto& c : r.clauses()) EXPECT_NE(c, "MR-AK-05") << int{opcode};
  }
}

TEST(Checkers, SecondSequenceNakBeforeTheExpectedPsn) {
  Trace r;
  r.add(send_only(5));
  r.add(send_only(6));
  r.add(send_only(7));
  r.add(ack(6, wire::kNakPsnSequenceError));
  r.add(send_only(8));
  r.add(ack(6, wire::kNakPsnSequenceError));
  ASSERT_EQ(r.clauses(), Clauses{"MR-PS-05"});
  EXPECT_EQ(r.found[0].frame, 6u);
  EXPECT_EQ(r.found[0].flow, "10.0.0.2->10.0.0.1 qp 0x000123");
  EXPECT_EQ(r.found[0].sender, "10.0.0.1");
}

TEST(Checkers, NakAfterRetransmissionIsAllowed) {
  Trace r;
  r.add(send_only(5));
  r.add(send_only(6));
  r.add(send_only(7));
  r.add(ack(6, wire::kNakPsnSequenceError));
  r.add(send_only(6));
  r.add(send_only(8));
  r.add(ack(7, wire::kNakPsnSequenceError));
  EXPECT_EQ(r.clauses(), Clauses{});
}

TEST(Checkers, AckAheadMsnBackSyndromeFormat) {
  Trace r;
  r.add(send_only(5));
  r.add(ack(9));
  EXPECT_EQ(r.clauses(), Clauses{"MR-AK-02"});
  Trace m;
  m.add(send_only(5));
  m.add(ack(5, wire::kSyndromeAck, 3));
  m.add(ack(5, wire::kSyndromeAck, 2));
  EXPECT_EQ(m.clauses(), Clauses{"MR-AK-03"});
  Trace s;
  s.add(send_only(5));
  s.add(ack(5, kReservedSyndrome));
  EXPECT_EQ(s.clauses(), Clauses{"MR-AK-07"});
  Trace f;
  f.add(send_only(5));
  RocePacket a = ack(5);
  a.bth.ackreq = 1;
  f.add(a);
  EXPECT_EQ(f.clauses(), Clauses{"MR-AK-14"});
}

TEST(Checkers, DuplicateAnsweredWithItsOwnPsn) {
  Trace r;
  r.add(send_only(5));
  r.add(ack(5));
  r.add(send_only(6));
  r.add(ack(6, wire::kSyndromeAck, 2));
  r.add(send_only(5));  // duplicate
  r.add(ack(5, wire::kSyndromeAck, 2));
  EXPECT_EQ(r.clauses(), Clauses{"MR-AK-11"});
}

TEST(Checkers, ReadResponses) {
  const std::vector<uint8_t> mtu(1024, 1);
  Trace ok;
  ok.add(read_request(5, 0x1000, 3000));
  ok.add(read_response(wire::kOpRcRdmaReadResponseFirst, 5), mtu);
  ok.add(read_response(wire::kOpRcRdmaReadResponseMiddle, 6), mtu);
  ok.add(read_response(wire::kOpRcRdmaReadResponseLast, 7), std::vector<uint8_t>(952, 1));
  ok.add(send_only(8));
  EXPECT_EQ(ok.clauses(), Clauses{});
  Trace gap;
  gap.add(read_request(5, 0x1000, 3000));
  gap.add(read_response(wire::kOpRcRdmaReadResponseFirst, 5), mtu);
  gap.add(read_response(wire::kOpRcRdmaReadResponseLast, 7), std::vector<uint8_t>(952, 1));
  EXPECT_EQ(gap.clauses(), Clauses{"MR-RD-02"});
  Trace aeth;
  aeth.add(read_request(5, 0x1000, 100));
  aeth.add(read_response(wire::kOpRcRdmaReadResponseOnly, 5, wire::kNakInvalidRequest),
           std::vector<uint8_t>(100, 1));
  EXPECT_EQ(aeth.clauses(), Clauses{"MR-RD-03"});
  Trace psns;
  psns.add(read_request(5, 0x1000, 3000));
  psns.add(read_response(wire::kOpRcRdmaReadResponseFirst, 5), mtu);
  psns.add(read_response(wire::kOpRcRdmaReadResponseMiddle, 6), mtu);
  psns.add(read_response(wire::kOpRcRdmaReadResponseLast, 7), std::vector<uint8_t>(952, 1));
  psns.add(send_only(9));  // a 3000-byte READ at PMTU 1024 consumes 3 PSNs: 5, 6, 7
  EXPECT_EQ(psns.clauses(), Clauses{"MR-PS-02"});
}

// Sixteen READs deep with reissues of their tails, the ring of pending READs recycles the
// oldest entries; a READ retransmitted after that is asked again, and its answer is one
// (found by RC-RD-019: 100 READs under reordering and loss).
TEST(Checkers, TheAnswerToAReadRetransmittedAfterTheRingRecycledItIsARead) {
  const std::vector<uint8_t> one(1, 1);
  Trace r;
  for (uint32_t i = 0; i < 40; ++i) r.add(read_request(10 + i, 0x1000 + i, 1));
  r.add(read_request(10, 0x1000, 1));  // the first READ again: its entry was recycled
  r.add(read_response(wire::kOpRcRdmaReadResponseOnly, 10), one);
  for (const auto& c : r.clauses()) EXPECT_NE(c, "MR-RD-02");
}

// A READ whose responses were partly lost is reissued from the first missing PSN with the
// VA advanced and the length reduced (MR-RT-05): a retransmission, not a PSN miscount. The
// answer starting with MIDDLE is MR-RD-09 (rxe does this), reported once, and the checker
// follows the rest of that answer.
TEST(Checkers, ReadReissuedMidRangeIsOneRd09AndNoPs02) {
  const std::vector<uint8_t> mtu(1024, 1);
  Trace r;
  r.add(read_request(5, 0x10000, 6144));  // PSNs 5..10 at PMTU 1024, which the capture shows later
  r.add(read_response(wire::kOpRcRdmaReadResponseFirst, 5), mtu);
  r.add(read_response(wire::kOpRcRdmaReadResponseMiddle, 6), mtu);
  // Lost on the way to the requester:
  r.add(read_response(wire::kOpRcRdmaReadResponseMiddle, 7), mtu);
  r.add(read_request(7, 0x10800, 4096));  // the tail: 2 PMTUs in, 4096 bytes left
  r.add(read_response(wire::kOpRcRdmaReadResponseMiddle, 7), mtu);  // answered from the middle
  r.add(read_response(wire::kOpRcRdmaReadResponseMiddle, 8), mtu);
  r.add(read_response(wire::kOpRcRdmaReadResponseMiddle, 9), mtu);
  r.add(read_response(wire::kOpRcRdmaReadResponseLast, 10), mtu);
  r.add(send_only(11));
  ASSERT_EQ(r.clauses(), Clauses{"MR-RD-09"});
  EXPECT_EQ(r.found[0].frame, 6u);

  Trace first;  // the same reissue answered FIRST..LAST, as MR-RD-09 asks: clean
  first.add(read_request(5, 0x10000, 6144));
  first.add(read_response(wire::kOpRcRdmaReadResponseFirst, 5), mtu);
  first.add(read_response(wire::kOpRcRdmaReadResponseMiddle, 6), mtu);
  first.add(read_request(7, 0x10800, 4096));
  for (auto [op, psn] : {std::pair{wire::kOpRcRdmaReadResponseFirst, 7},
                         {wire::kOpRcRdmaReadResponseMiddle, 8},
                         {wire::kOpRcRdmaReadResponseMiddle, 9},
                         {wire::kOpRcRdmaReadResponseLast, 10}}) {
    first.add(read_response(static_cast<uint8_t>(op), static_cast<uint32_t>(psn)), mtu);
  }
  first.add(send_only(11));
  EXPECT_EQ(first.clauses(), Clauses{});

  Trace bad;  // a READ inside the range that names no tail of it is still a miscount
  bad.add(read_request(5, 0x10000, 6144));
  bad.add(read_response(wire::kOpRcRdmaReadResponseFirst, 5), mtu);
  bad.add(read_response(wire::kOpRcRdmaReadResponseMiddle, 6), mtu);
  bad.add(read_request(7, 0x90000, 512));
  EXPECT_EQ(bad.clauses(), Clauses{"MR-PS-02"});
}

// The reissue is found after the ring of pending READs has wrapped past older entries, and
// a second reissue of the same READ is found as well.
TEST(Checkers, ReadReissueIsFoundAfterTheReadRingWraps) {
  const std::vector<uint8_t> mtu(1024, 1);
  Trace r;
  uint32_t psn = 1;
  for (size_t i = 0; i < kPendingReads + 3; ++i, ++psn) {  // one-PSN READs, each answered
    r.add(read_request(psn, 0x1000 * i, 64));
    r.add(read_response(wire::kOpRcRdmaReadResponseOnly, psn), std::vector<uint8_t>(64, 2));
  }
  const uint32_t big = psn;  // 6144 bytes: 6 PSNs at PMTU 1024
  r.add(read_request(big, 0x10000, 6144));
  r.add(read_response(wire::kOpRcRdmaReadResponseFirst, big), mtu);
  r.add(read_response(wire::kOpRcRdmaReadResponseMiddle, big + 1), mtu);
  r.add(read_request(big + 1, 0x10400, 5120));  // the tail from PSN big+1
  // Answered from the middle: MR-RD-09.
  r.add(read_response(wire::kOpRcRdmaReadResponseMiddle, big + 1), mtu);
  r.add(read_response(wire::kOpRcRdmaReadResponseMiddle, big + 2), mtu);
  r.add(read_response(wire::kOpRcRdmaReadResponseMiddle, big + 3), mtu);
  r.add(read_request(big + 2, 0x10800, 4096));  // reissued again, from PSN big+2
  r.add(read_response(wire::kOpRcRdmaReadResponseMiddle, big + 2), mtu);  // MR-RD-09 again
  ASSERT_EQ(r.clauses(), (Clauses{"MR-RD-09", "MR-RD-09"}));
}

// MR-PS-11: a READ of 2^23 - 1 packets at PMTU 256 takes 2^23 - 1 PSNs; a request after it
// with nothing acknowledged makes 2^23 unacknowledged PSNs. One PSN fewer is within bounds,
// and so is the same request once the READ's first response acknowledges its start.
TEST(Checkers, UnackedRequestPsnsBeyondHalfThePsnSpace) {
  constexpr uint32_t kWindow = (1U << 23) - 1;
  const std::vector<uint8_t> pmtu(256, 1);
  auto trace = [&](uint32_t read_packets, bool acked) {
    auto t = std::make_unique<Trace>();
    // WRITE FIRST + LAST: the PMTU is 256.
    RocePacket first = packet(true, wire::kOpRcRdmaWriteFirst, 1);
    first.reth = wire::Reth{0x1000, 7, 512};
    t->add(first, pmtu);
    RocePacket last = packet(true, wire::kOpRcRdmaWriteLast, 2);
    last.bth.ackreq = 1;
    t->add(last, pmtu);
    t->add(ack(2));
    t->add(read_request(3, 0x10000, read_packets * 256));
    if (acked) t->add(read_response(wire::kOpRcRdmaReadResponseFirst, 3), pmtu);
    t->add(send_only(wire::psn_add(3, read_packets)));
    return t;
  };
  auto over = trace(kWindow, false);
  ASSERT_EQ(over->clauses(), Clauses{"MR-PS-11"});
  EXPECT_EQ(over->found[0].frame, 5u);
  EXPECT_NE(over->found[0].text.find("8388608 request PSNs unacknowledged"), std::string::npos)
      << over->found[0].text;
  EXPECT_EQ(trace(kWindow - 1, false)->clauses(), Clauses{});
  EXPECT_EQ(trace(kWindow, true)->clauses(), Clauses{});
}

// Responses that lost their FIRST are one MR-RD-01, not one per packet that follows.
TEST(Checkers, ReadResponseWithoutFirstIsReportedOnce) {
  RocePacket rq = packet(true, wire::kOpRcRdmaReadRequest, 5);
  rq.bth.ackreq = 1;
  rq.reth = wire::Reth{0x1000, 7, 4096};
  const std::vector<uint8_t> mtu(1024, 1);
  Trace r;
  r.add(rq);
  r.add(read_response(wire::kOpRcRdmaReadResponseMiddle, 6), mtu);
  r.add(read_response(wire::kOpRcRdmaReadResponseMiddle, 7), mtu);
  r.add(read_response(wire::kOpRcRdmaReadResponseLast, 8), mtu);
  EXPECT_EQ(r.clauses(), Clauses{"MR-RD-01"});
}

// A second sequence NAK with a later PSN means the responder's ePSN moved, so a request
// with the first NAK's PSN reached it (reordered behind the capture point): no MR-PS-05.
// A second NAK with the same PSN is one.
TEST(Checkers, SecondNakWithLaterPsnIsNoPs05) {
  Trace r;
  for (uint32_t psn = 5; psn <= 8; ++psn) r.add(send_only(psn));
  r.add(ack(6, wire::kNakPsnSequenceError));
  r.add(ack(7, wire::kNakPsnSequenceError));
  EXPECT_EQ(r.clauses(), Clauses{});
  Trace same;
  for (uint32_t psn = 5; psn <= 8; ++psn) same.add(send_only(psn));
  same.add(ack(6, wire::kNakPsnSequenceError));
  same.add(ack(6, wire::kNakPsnSequenceError));
  EXPECT_EQ(same.clauses(), Clauses{"MR-PS-05"});
}

TEST(Checkers, AtomicAcknowledgePsn) {
  RocePacket fa = packet(true, wire::kOpRcFetchAdd, 5);
  fa.bth.ackreq = 1;
  fa.atomic_eth = wire::AtomicEth{0x1000, 7, 1, 0};
  RocePacket aa = packet(false, wire::kOpRcAtomicAcknowledge, 4);
  aa.aeth = wire::Aeth{wire::kSyndromeAck, 1};
  aa.atomic_ack_eth = wire::AtomicAckEth{9};
  Trace r;
  r.add(fa);
  r.add(aa);
  EXPECT_EQ(r.clauses(), Clauses{"MR-AT-06"});
}

TEST(Checkers, CnpFormatAndPacing) {
  RocePacket c = packet(false, wire::kOpCnp, 0);
  c.bth.becn = 1;
  c.cnp_padding = wire::CnpPadding{};
  Trace r;
  r.add(c);
  r.add(c, {}, true, 60'000);
  EXPECT_EQ(r.clauses(), Clauses{});
  r.add(c, {}, true, 10'000);
  EXPECT_EQ(r.clauses(), Clauses{"MR-CC-03"});
  Trace f;
  c.bth.becn = 0;
  f.add(c);
  EXPECT_EQ(f.clauses(), Clauses{"MR-CC-01"});
}

TEST(Checkers, CnpPacingAllowsTheCapturesTimestampSlack) {
  RocePacket c = packet(false, wire::kOpCnp, 0);
  c.bth.becn = 1;
  c.cnp_padding = wire::CnpPadding{};
  // Two CNPs stamped 36 us apart: on a capture with exact stamps, one too many; where the
  // stamps may be 20 us off, they may have been sent 56 us apart; 5 us off cannot explain it.
  Trace exact;
  Trace slack20({.timestamp_slack_ns = 20'000});
  Trace slack5({.timestamp_slack_ns = 5'000});
  for (Trace* t : {&exact, &slack20, &slack5}) {
    t->add(c);
    t->add(c, {}, true, 36'000);
  }
  EXPECT_EQ(exact.clauses(), Clauses{"MR-CC-03"});
  EXPECT_EQ(slack20.clauses(), Clauses{});
  EXPECT_EQ(slack5.clauses(), Clauses{"MR-CC-03"});
}

TEST(Checkers, PaddingAndMalformed) {
  Trace r;
  RocePacket p = send_only(5);
  p.payload = std::vector<uint8_t>(5, 1);
  const std::vector<uint8_t> five(5, 1);
  p.payload = five;
  r.a.add_bytes(wire::build_frame(p, {.fill_padding = false}), 1);  // PadCnt 0 for 5 bytes
  EXPECT_EQ(r.clauses(), Clauses{"MR-WF-06"});
  Trace m;
  auto bytes = wire::build_frame(send_only(5));
  bytes.resize(bytes.size() - 6);  // lengths now disagree
  m.a.add_bytes(bytes, 1);
  ASSERT_EQ(m.found.size(), 1u);
  EXPECT_EQ(m.a.counts().malformed, 1u);
}

// The frame of `p` (pad count as `p` has it) with its bytes cut or changed by `edit`.
template <class Edit>
std::vector<uint8_t> edited(const RocePacket& p, Edit edit) {
  auto bytes = wire::build_frame(p);
  edit(bytes);
  return bytes;
}

TEST(Checkers, AMalformedFrameWhoseBthWasReadIsReportedWithItsPsn) {
  Trace r;
  // An atomic without its AtomicETH: the BTH, then the ICRC.
  r.a.add_bytes(wire::build_frame(packet(true, wire::kOpRcFetchAdd, 0x42)), 1);
  // A pad count of 3 on a SEND of 2 bytes (and no pad bytes).
  RocePacket p = send_only(0x43);
  const std::vector<uint8_t> two(2, 1);
  p.payload = two;
  r.a.add_bytes(edited(p, [](auto& b) { b[42 + 1] = (b[42 + 1] & 0xcf) | 0x30; }), 2);
  ASSERT_EQ(r.found.size(), 2u);
  EXPECT_EQ(r.found[0].clause, "MR-WF-10");
  EXPECT_EQ(r.found[0].text,
            "malformed packet (RC_FETCH_ADD dqpn 0x000123 psn 0x000042): AtomicETH at byte 54: "
            "needs 28 bytes, 4 remain (RC_FETCH_ADD implies AtomicETH)");
  EXPECT_EQ(r.found[0].flow, "10.0.0.2->10.0.0.1");
  EXPECT_EQ(r.found[0].sender, "10.0.0.2");
  EXPECT_EQ(r.found[1].clause, "MR-WF-06");
  EXPECT_NE(r.found[1].text.find("(RC_SEND_ONLY dqpn 0x000123 psn 0x000043): BTH.padcount"),
            std::string::npos)
      << r.found[1].text;
  EXPECT_EQ(r.a.counts().malformed, 2u);
}

TEST(Checkers, AMalformedFrameCutInItsBthHasNoPsnToName) {
  Trace r;
  const auto cut = edited(send_only(0x44), [](auto& b) {
    b.resize(42 + 6);
    b[14 + 3] = 20 + 8 + 6;
    b[14 + 20 + 5] = 8 + 6;
  });
  r.a.add_bytes(cut, 1);
  ASSERT_EQ(r.found.size(), 1u);
  EXPECT_EQ(r.found[0].text, "malformed packet: BTH at byte 42: needs 12 bytes, 6 remain");
  EXPECT_EQ(r.found[0].flow, "10.0.0.2->10.0.0.1");
}

}  // namespace
}  // namespace mr::analyze
