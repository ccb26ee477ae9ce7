// A violation is reported at the frame that breaks the rule. One row per checker (some have
// two): a capture, a frame of it that breaks one of the checker's clauses, and that frame as
// it should be. The broken capture gives exactly one violation from the checker, at that
// frame with that clause; the fixed capture gives no violation at all. The frames after the
// broken one are right, so a checker that reports late (at the next frame), on the wrong
// frame, or at every frame after it (its state re-based on the bad frame) fails here.
//
// Bases: the real Soft-RoCE capture of pcaps/rxe (a 3000-byte SEND as FIRST/MIDDLE/LAST at
// PSNs 0x069b79-0x069b7b, sent 20 times) with one field of one frame changed and the frame rebuilt
// by the codec (ICRC recomputed unless the row is about it); or exchanges built here.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "harness/analyze/analyzer.h"
#include "harness/analyze/checker_table.h"
#include "reference/io/capture_reader.h"
#include "reference/wire/aeth_syndrome.h"
#include "reference/wire/frame_builder.h"
#include "reference/wire/frame_decoder.h"
#include "reference/wire/opcode.h"

namespace mr::analyze {
namespace {

using wire::RocePacket;

// One frame of a test capture: the packet with its payload and pad bytes owned, how to build
// it, and the time since the frame before.
struct Frame {
  RocePacket p;
  std::vector<uint8_t> payload;
  std::vector<uint8_t> pad;
  wire::BuildOptions options{.fill_padding = true};
  uint64_t gap_ns = 1000;
};
using Capture = std::vector<Frame>;

std::vector<Violation> analyze(const Capture& frames) {
  std::vector<Violation> found;
  Analyzer a([&](const Violation& v) { found.push_back(v); });
  uint64_t t = 1'000'000;
  for (const Frame& f : frames) {
    RocePacket q = f.p;
    q.payload = f.payload;
    q.pad = f.pad;
    t += f.gap_ns;
    a.add_bytes(wire::build_frame(q, f.options), t);
  }
  return found;
}

constexpr uint32_t kRxeFirstPsn = 0x069b79;  // of the SEND's FIRST in the real capture

// The real capture's bytes, read once, and its frames decoded into Frames.
const std::vector<std::vector<uint8_t>>& rxe_bytes() {
  static const std::vector<std::vector<uint8_t>> bytes = [] {
    std::vector<std::vector<uint8_t>> out;
    auto reader = io::CaptureReader::open("pcaps/rxe/rxe-6.1-ipv4-send-retransmits.pcapng");
    if (!reader) return out;
    while (auto f = reader->next()) {
      if (!*f) break;
      out.emplace_back((*f)->data.begin(), (*f)->data.end());
    }
    return out;
  }();
  return bytes;
}

Capture rxe_capture() {
  Capture frames;
  for (const auto& bytes : rxe_bytes()) {
    auto d = wire::decode_frame(bytes);
    const auto* roce = d ? std::get_if<wire::DecodedRoce>(&*d) : nullptr;
    if (!roce) return {};
    Frame f{roce->packet};
    f.payload.assign(roce->packet.payload.begin(), roce->packet.payload.end());
    f.pad.assign(roce->packet.pad.begin(), roce->packet.pad.end());
    f.options = {.fill_padding = false};  // as Soft-RoCE sent them
    frames.push_back(std::move(f));
  }
  return frames;
}

// The real capture with `change` applied to its frame `number` (1-based) when `broken`.
Capture rxe_with(bool broken, size_t number, const std::function<void(Frame&)>& change) {
  Capture frames = rxe_capture();
  if (broken && number <= frames.size()) change(frames[number - 1]);
  return frames;
}

// Exchanges built here: requester 10.0.0.2 (QP 0x11) to responder 10.0.0.1 (QP 0x123).
Frame packet(bool from_requester, uint8_t op, uint32_t psn, size_t payload = 0) {
  Frame f;
  wire::Ipv4 ip;
  ip.src = *wire::Ipv4Address::parse(from_requester ? "10.0.0.2" : "10.0.0.1");
  ip.dst = *wire::Ipv4Address::parse(from_requester ? "10.0.0.1" : "10.0.0.2");
  f.p.ip = ip;
  f.p.udp.sport = from_requester ? 0xc001 : 0xc002;
  f.p.bth.dqpn = from_requester ? 0x123 : 0x11;
  f.p.bth.opcode = op;
  f.p.bth.psn = psn;
  f.payload.assign(payload, 0x5a);
  return f;
}
Frame send(uint8_t op, uint32_t psn, size_t payload) {
  Frame f = packet(true, op, psn, payload);
  f.p.bth.ackreq = wire::opcode_info(op)->is(wire::kEnd) ? 1 : 0;
  return f;
}
Frame send_only(uint32_t psn) { return send(wire::kOpRcSendOnly, psn, 8); }
Frame ack(uint32_t psn, uint32_t msn, uint8_t syndrome = wire::kSyndromeAck) {
  Frame f = packet(false, wire::kOpRcAcknowledge, psn);
  f.p.aeth = wire::Aeth{syndrome, msn};
  return f;
}
// A WRITE packet; FIRST and ONLY carry a RETH with `dlen`.
Frame write(uint8_t op, uint32_t psn, size_t payload, uint32_t dlen = 0) {
  Frame f = send(op, psn, payload);
  if (wire::opcode_info(op)->is(wire::kStart)) f.p.reth = wire::Reth{0x10000, 7, dlen};
  return f;
}
Frame read_request(uint32_t psn, uint32_t dlen) {
  Frame f = packet(true, wire::kOpRcRdmaReadRequest, psn);
  f.p.bth.ackreq = 1;
  f.p.reth = wire::Reth{0x10000, 7, dlen};
  return f;
}
Frame read_response(uint8_t op, uint32_t psn, size_t payload, uint32_t msn) {
  Frame f = packet(false, op, psn, payload);
  if (op != wire::kOpRcRdmaReadResponseMiddle) f.p.aeth = wire::Aeth{wire::kSyndromeAck, msn};
  return f;
}
Frame cnp(uint64_t gap_ns) {
  Frame f = packet(false, wire::kOpCnp, 0);
  f.p.bth.becn = 1;
  f.p.cnp_padding = wire::CnpPadding{};
  f.gap_ns = gap_ns;
  return f;
}

// SEND FIRST/LAST at PMTU 1024 and its ACK (MSN 1): the PMTU is known from here on.
Capture pmtu_1024() {
  return {send(wire::kOpRcSendFirst, 1, 1024), send(wire::kOpRcSendLast, 2, 10), ack(2, 1)};
}

// An exchange whose frame `number` (1-based) is `bad` when broken and `good` otherwise.
// An Ext packet (TVer 1): a SEND with its MXH (EV = its UDP port), or an Ext ACK with its
// SACKETH.
Frame ext_send_only(uint32_t psn, uint16_t ev) {
  Frame f = send_only(psn);
  f.p.bth.version = wire::kExtVersion;
  f.p.mxh = wire::Mxh{};
  f.p.mxh->ev = ev;
  f.p.mxh->msn = 1;
  f.p.udp.sport = ev;
  return f;
}
Frame retransmitted(Frame f) {
  f.p.mxh->retx = 1;
  return f;
}
Frame ext_ack(uint32_t psn, uint8_t syndrome = wire::kSyndromeAck) {
  Frame f = ack(psn, 1, syndrome);
  f.p.bth.version = wire::kExtVersion;
  f.p.sacketh = wire::Sacketh{};
  f.p.sacketh->mpr = 8;  // the window ext=1 offers (MR-SA-09: never 0)
  return f;
}

Capture exchange(bool broken, Capture before, const Frame& good, const Frame& bad,
                 const Capture& after) {
  before.push_back(broken ? bad : good);
  before.insert(before.end(), after.begin(), after.end());
  return before;
}

Capture read_first_off_by_one(bool broken) {  // frames 4-7: READ 3000 bytes, PSNs 3-5
  return exchange(broken,
                  [] {
                    Capture c = pmtu_1024();
                    c.push_back(read_request(3, 3000));
                    return c;
                  }(),
                  read_response(wire::kOpRcRdmaReadResponseFirst, 3, 1024, 2),
                  read_response(wire::kOpRcRdmaReadResponseFirst, 4, 1024, 2),
                  {read_response(wire::kOpRcRdmaReadResponseMiddle, 4, 1024, 2),
                   read_response(wire::kOpRcRdmaReadResponseLast, 5, 952, 2), send_only(6)});
}

Capture read_middle_misnumbered(bool broken) {  // READ 4096 bytes, PSNs 3-6
  Capture c = pmtu_1024();
  c.push_back(read_request(3, 4096));
  c.push_back(read_response(wire::kOpRcRdmaReadResponseFirst, 3, 1024, 2));
  return exchange(broken, c, read_response(wire::kOpRcRdmaReadResponseMiddle, 4, 1024, 2),
                  read_response(wire::kOpRcRdmaReadResponseMiddle, 9, 1024, 2),
                  {read_response(wire::kOpRcRdmaReadResponseMiddle, 5, 1024, 2),
                   read_response(wire::kOpRcRdmaReadResponseLast, 6, 1024, 2), send_only(7)});
}

// A NAK 0x60 at a PSN never sent, then the responder's real sequence error later: the
// second NAK is at a PSN behind the first's, and still no MR-PS-05.
Capture nak_never_sent(bool broken) {
  return exchange(
      broken, {send_only(5), send_only(6), send_only(7)}, ack(6, 0, wire::kNakPsnSequenceError),
      ack(20, 0, wire::kNakPsnSequenceError),
      {send_only(6), send_only(7), send_only(8), ack(8, 2, wire::kNakPsnSequenceError)});
}

// The third ACK's MSN goes back to 1; the fourth goes on from 3, and its MSN 3 would be a
// second violation if the bad MSN had become the count.
Capture msn_back(bool broken) {
  return exchange(broken, {send_only(5), ack(5, 1), send_only(6), ack(6, 2), send_only(7)},
                  ack(7, 3), ack(7, 1), {send_only(8), ack(8, 3), send_only(9), ack(9, 4)});
}

// MR-PS-11: a READ of 2^23 - 1 packets at PMTU 256 and nothing acknowledged: the SEND after
// it makes 2^23 PSNs unacknowledged; with the READ one packet shorter, the SEND is in bounds.
Capture unacked_window(bool broken) {
  constexpr uint32_t kWindow = (1U << 23) - 1;
  const uint32_t read_packets = broken ? kWindow : kWindow - 1;
  Frame first = send(wire::kOpRcRdmaWriteFirst, 1, 256);
  first.p.reth = wire::Reth{0x1000, 7, 512};
  return {first, send(wire::kOpRcRdmaWriteLast, 2, 256), ack(2, 1),
          read_request(3, read_packets * 256), send_only(3 + read_packets)};
}

// MR-PS-02: a READ of 3000 bytes at PSN 3 takes 3 PSNs at PMTU 1024 (shown by the SEND
// before it, or, with `pmtu_known` false, by no packet: then any of the five PMTUs may hold,
// which give 12, 6, 3, 2 or 1 PSNs). The broken requester's next request takes PSN 7, 4
// after the READ, which none gives; the requests after it go on from 7 as they would from 6.
Capture read_miscounted(bool broken, bool pmtu_known) {
  Capture c = pmtu_known ? pmtu_1024() : Capture{send_only(2), ack(2, 1)};
  c.push_back(read_request(3, 3000));
  return exchange(broken, c, send_only(6), send_only(7), {send_only(7), send_only(8)});
}

// MR-PS-05: SEND 6 is lost after the tap, 7 and 8 arrive ahead of the ePSN: the responder
// NAKs 7 (PSN 6) and must then discard 8 silently; the broken one NAKs it too. The
// requester's go-back-N from 6 comes after, in both.
Capture second_nak(bool broken) {
  Capture c = {
      send_only(5), ack(5, 1), send_only(6), send_only(7), ack(6, 1, wire::kNakPsnSequenceError),
      send_only(8)};
  if (broken) c.push_back(ack(6, 1, wire::kNakPsnSequenceError));
  for (const Frame& f : {send_only(6), send_only(7), send_only(8), ack(8, 4)}) c.push_back(f);
  return c;
}

// MR-RD-01: a READ of 2048 bytes (2 packets at PMTU 1024) answered with ONLY where FIRST
// belongs; the LAST after it is the READ's, right in both.
Capture read_answered_with_only(bool broken) {
  Capture c = pmtu_1024();
  c.push_back(read_request(3, 2048));
  return exchange(broken, c, read_response(wire::kOpRcRdmaReadResponseFirst, 3, 1024, 2),
                  read_response(wire::kOpRcRdmaReadResponseOnly, 3, 1024, 2),
                  {read_response(wire::kOpRcRdmaReadResponseLast, 4, 1024, 2), send_only(5)});
}

// MR-RD-03: the same READ's LAST with a NAK syndrome (0x61, invalid request) in its AETH.
Capture read_last_with_nak(bool broken) {
  Capture c = pmtu_1024();
  c.push_back(read_request(3, 2048));
  c.push_back(read_response(wire::kOpRcRdmaReadResponseFirst, 3, 1024, 2));
  const Frame last = read_response(wire::kOpRcRdmaReadResponseLast, 4, 1024, 2);
  Frame nak = last;
  nak.p.aeth->syndrome = wire::kNakInvalidRequest;
  return exchange(broken, c, last, nak, {send_only(5), ack(5, 3)});
}

// MR-RD-09: a READ of 4096 bytes at PSN 3 answered in full at the tap, the responses of PSNs
// 5 and 6 lost after it; the requester reissues the READ's tail (PSN 5, VA + 2048, 2048
// bytes: MR-RT-05), whose answer starts with FIRST, or, broken, with MIDDLE (as Linux rxe 6.1
// does: pcaps/analyze/rd09-*). The LAST after it is right in both.
Capture reissue_answered_with_middle(bool broken) {
  using wire::kOpRcRdmaReadResponseMiddle;
  Capture c = pmtu_1024();
  c.push_back(read_request(3, 4096));
  c.push_back(read_response(wire::kOpRcRdmaReadResponseFirst, 3, 1024, 2));
  c.push_back(read_response(kOpRcRdmaReadResponseMiddle, 4, 1024, 2));
  c.push_back(read_response(kOpRcRdmaReadResponseMiddle, 5, 1024, 2));
  c.push_back(read_response(wire::kOpRcRdmaReadResponseLast, 6, 1024, 2));
  Frame reissue = read_request(5, 2048);
  reissue.p.reth->va = 0x10000 + 2 * 1024;
  c.push_back(reissue);
  return exchange(broken, c, read_response(wire::kOpRcRdmaReadResponseFirst, 5, 1024, 2),
                  read_response(kOpRcRdmaReadResponseMiddle, 5, 1024, 2),
                  {read_response(wire::kOpRcRdmaReadResponseLast, 6, 1024, 2), send_only(7)});
}

Frame with(Frame f, const std::function<void(Frame&)>& change) {
  change(f);
  return f;
}

struct Row {
  std::string_view checker;  // its name in checker_table()
  std::string_view clause;
  size_t frame;  // 1-based: the frame that breaks the clause
  std::function<Capture(bool broken)> capture;
  std::optional<uint32_t> psn = {};  // the PSN the violation's text names, when it names one
};

std::vector<Row> rows() {
  using wire::kOpRcAtomicAcknowledge;
  Frame fetch_add = send(wire::kOpRcFetchAdd, 5, 0);
  fetch_add.p.atomic_eth = wire::AtomicEth{0x1000, 7, 1, 0};
  Frame atomic_ack = packet(false, kOpRcAtomicAcknowledge, 5);
  atomic_ack.p.aeth = wire::Aeth{wire::kSyndromeAck, 1};
  atomic_ack.p.atomic_ack_eth = wire::AtomicAckEth{9};
  const Frame ack_se = with(ack(5, 1), [](Frame& f) { f.p.bth.solicited = 1; });
  return {
      {"version", "MR-WF-02", 5,
       [](bool b) { return rxe_with(b, 5, [](Frame& f) { f.p.bth.version = 2; }); }},
      {"reserved-bits", "MR-WF-04", 5,
       [](bool b) { return rxe_with(b, 5, [](Frame& f) { f.p.bth.resv7 = 1; }); }},
      {"padding", "MR-WF-06", 4,  // a FIRST with PadCnt 1 (and one pad byte)
       [](bool b) {
         return rxe_with(b, 4, [](Frame& f) {
           f.p.bth.padcount = 1;
           f.pad = {0};
         });
       }},
      {"udp-port", "MR-WF-08", 7,
       [](bool b) { return rxe_with(b, 7, [](Frame& f) { f.p.udp.sport = 0xd354; }); }},
      {"opcode", "MR-WF-10", 14,  // a MIDDLE sent with a reserved RC opcode
       [](bool b) { return rxe_with(b, 14, [](Frame& f) { f.p.bth.opcode = 0x1e; }); }},
      {"payload-size", "MR-MP-08", 11,  // a MIDDLE of 2048 bytes; the PMTU is 1024
       [](bool b) { return rxe_with(b, 11, [](Frame& f) { f.payload.resize(2048, 0); }); }},
      {"payload-size", "MR-MP-07", 4,  // a WRITE ONLY of 64 bytes whose RETH says 4096
       [](bool b) {
         return exchange(b, pmtu_1024(), write(wire::kOpRcRdmaWriteOnly, 3, 64, 64),
                         write(wire::kOpRcRdmaWriteOnly, 3, 64, 4096), {ack(3, 2), send_only(4)});
       }},
      {"payload-size", "MR-MP-07", 6,  // the WRITE's LAST carries 900 of the 952 bytes left
       [](bool b) {
         return exchange(b,
                         {send(wire::kOpRcSendFirst, 1, 1024), send(wire::kOpRcSendLast, 2, 10),
                          ack(2, 1), write(wire::kOpRcRdmaWriteFirst, 3, 1024, 3000),
                          write(wire::kOpRcRdmaWriteMiddle, 4, 1024)},
                         write(wire::kOpRcRdmaWriteLast, 5, 952),
                         write(wire::kOpRcRdmaWriteLast, 5, 900), {ack(5, 2), send_only(6)});
       }},
      {"icrc", "MR-IC-01", 8,
       [](bool b) {
         return rxe_with(b, 8, [](Frame& f) {
           f.options.fill_icrc = false;
           f.p.icrc = f.p.icrc.value() ^ 1;
         });
       }},
      {"psn-order", "MR-PS-10", 8,  // the third transmission's MIDDLE skips to the LAST's PSN
       [](bool b) { return rxe_with(b, 8, [](Frame& f) { f.p.bth.psn = kRxeFirstPsn + 2; }); },
       kRxeFirstPsn + 2},
      {"psn-order", "MR-PS-01", 3,
       [](bool b) {
         return exchange(b, {send_only(5), send_only(6)}, send_only(7), send_only(9),
                         {send_only(8), send_only(9), send_only(10)});
       },
       9},
      {"psn-order", "MR-PS-02", 5, [](bool b) { return read_miscounted(b, true); }, 7},
      {"psn-order", "MR-PS-02", 4,  // no PMTU shown yet
       [](bool b) { return read_miscounted(b, false); }, 7},
      {"nak-sequence", "MR-PS-04", 4, nak_never_sent, 20},
      {"nak-sequence", "MR-PS-05", 7, second_nak, 6},
      {"unacked-window", "MR-PS-11", 5, unacked_window, 3 + (1U << 23) - 1},
      {"ack-psn", "MR-AK-02", 3,
       [](bool b) {
         return exchange(b, {send_only(5), send_only(6)}, ack(6, 2), ack(9, 2),
                         {send_only(7), ack(7, 3)});
       },
       9},
      {"msn", "MR-AK-03", 6, msn_back},
      {"ackreq", "MR-AK-05", 6,
       [](bool b) { return rxe_with(b, 6, [](Frame& f) { f.p.bth.ackreq = 0; }); }},
      {"syndrome", "MR-AK-07", 2,
       [](bool b) {
         return exchange(b, {send_only(5)}, ack(5, 1), ack(5, 1, 0x45), {send_only(6), ack(6, 2)});
       }},
      {"duplicate-ack", "MR-AK-11", 6,  // the duplicate SEND 5 is answered with PSN 5
       [](bool b) {
         return exchange(b, {send_only(5), ack(5, 1), send_only(6), ack(6, 2), send_only(5)},
                         ack(6, 2), ack(5, 2), {send_only(7), ack(7, 3)});
       },
       5},
      {"ack-format", "MR-AK-14", 2,
       [ack_se](bool b) {
         return exchange(b, {send_only(5)}, ack(5, 1), ack_se, {send_only(6), ack(6, 2)});
       }},
      {"read-response", "MR-RD-02", 5, read_first_off_by_one, 4},
      {"read-response", "MR-RD-02", 6, read_middle_misnumbered, 9},
      {"read-response", "MR-RD-01", 5, read_answered_with_only},
      {"read-response", "MR-RD-03", 6, read_last_with_nak},
      {"read-response", "MR-RD-09", 10, reissue_answered_with_middle, 5},
      {"atomic-ack", "MR-AT-06", 2,
       [fetch_add, atomic_ack](bool b) {
         Frame wrong = atomic_ack;
         wrong.p.bth.psn = 4;
         return exchange(b, {fetch_add}, atomic_ack, wrong, {send_only(6), ack(6, 2)});
       },
       4},
      {"cnp-format", "MR-CC-01", 2,
       [](bool b) {
         return exchange(b, {cnp(0)}, cnp(60'000),
                         with(cnp(60'000), [](Frame& f) { f.p.bth.becn = 0; }), {cnp(60'000)});
       }},
      {"ext-entropy", "MR-MU-02", 2,  // an Ext SEND whose UDP port is not its MXH EV
       [](bool b) {
         return exchange(b, {ext_send_only(5, 0xc105)}, ext_send_only(6, 0xc106),
                         with(ext_send_only(6, 0xc106), [](Frame& f) { f.p.udp.sport = 0xc105; }),
                         {ext_ack(6)});
       }},
      {"ext-nak", "MR-NK-01", 2,  // NAK 0x67 in an ATOMIC_ACKNOWLEDGE (an ACK's is right)
       [](bool b) {
         return exchange(b, {ext_send_only(5, 0xc105)}, ext_ack(5, wire::kNakPsnOutOfWindow),
                         with(ext_ack(5, wire::kNakPsnOutOfWindow),
                              [](Frame& f) {
                                f.p.bth.opcode = wire::kOpRcAtomicAcknowledge;
                                f.p.atomic_ack_eth = wire::AtomicAckEth{0};
                              }),
                         {});
       }},
      {"ext-window", "MR-SA-09", 2,  // MPR 8 then 1: the right edge moves back by 895 PSNs
       [](bool b) {
         return exchange(b, {ext_ack(5)}, ext_ack(6),
                         with(ext_ack(6), [](Frame& f) { f.p.sacketh->mpr = 1; }), {ext_ack(7)});
       }},
      {"ext-sack-offset", "MR-SA-18", 3,  // offset 8 when the newest PSN is within R + 63
       [](bool b) {
         return exchange(b, {ext_send_only(5, 0xc105), ext_send_only(20, 0xc105)}, ext_ack(5),
                         with(ext_ack(5),
                              [](Frame& f) {
                                f.p.sacketh->sack_ref = 0;
                                f.p.sacketh->sack_offset = 8;
                              }),
                         {ext_ack(20)});
       }},
      {"ext-retransmission", "MR-SA-04", 4,  // PSN 5 again after an ACK at 6 covered it
       [](bool b) {
         return exchange(b, {ext_send_only(5, 0xc105), ext_send_only(6, 0xc105), ext_ack(6)},
                         ext_send_only(7, 0xc105),
                         with(retransmitted(ext_send_only(5, 0xc106)),
                              [](Frame& f) { f.gap_ns = 3'000; }),  // past the reaction time
                         {ext_ack(7)});
       }},
      {"ext-retransmission", "MR-SA-12", 3,  // a retransmission without RETX
       [](bool b) {
         return exchange(b, {ext_send_only(5, 0xc105), ext_send_only(6, 0xc105)},
                         retransmitted(ext_send_only(5, 0xc106)), ext_send_only(5, 0xc106),
                         {ext_ack(6)});
       }},
      {"ext-retransmission", "MR-SA-12", 3,  // a retransmission of another message
       [](bool b) {
         return exchange(
             b, {ext_send_only(5, 0xc105), ext_send_only(6, 0xc105)},
             retransmitted(ext_send_only(5, 0xc106)),
             with(retransmitted(ext_send_only(5, 0xc106)), [](Frame& f) { f.p.mxh->msn = 2; }),
             {ext_ack(6)});
       }},
      {"cnp-pacing", "MR-CC-03", 3,  // a CNP 10 us after the one before
       [](bool b) {
         return exchange(b, {cnp(0), cnp(60'000)}, cnp(60'000), cnp(10'000),
                         {cnp(60'000), cnp(60'000)});
       }},
  };
}

std::set<std::string_view> clauses_of(std::string_view checker) {
  std::set<std::string_view> out;
  for (const CheckerEntry& e : checker_table()) {
    if (e.name != checker) continue;
    for (size_t at = 0; at < e.clauses.size();) {
      const size_t end = std::min(e.clauses.find(' ', at), e.clauses.size());
      out.insert(e.clauses.substr(at, end - at));
      at = end + 1;
    }
  }
  return out;
}

std::string listed(const std::vector<Violation>& found) {
  std::string s;
  for (const Violation& v : found) {
    s += "\n  frame " + std::to_string(v.frame) + " " + std::string(v.clause) + ": " + v.text;
  }
  return s.empty() ? " none" : s;
}

TEST(CheckerAttribution, TheRealCaptureRebuiltByTheCodecIsTheSameBytes) {
  const Capture frames = rxe_capture();
  ASSERT_EQ(frames.size(), 60u);
  EXPECT_EQ(frames[0].p.bth.psn.value(), kRxeFirstPsn);
  for (size_t i = 0; i < frames.size(); ++i) {
    RocePacket q = frames[i].p;
    q.payload = frames[i].payload;
    q.pad = frames[i].pad;
    EXPECT_EQ(wire::build_frame(q, frames[i].options), rxe_bytes()[i]) << "frame " << i + 1;
  }
}

TEST(CheckerAttribution, EveryCheckerHasARow) {
  std::set<std::string_view> covered;
  for (const Row& r : rows()) covered.insert(r.checker);
  for (const CheckerEntry& e : checker_table()) EXPECT_TRUE(covered.count(e.name)) << e.name;
}

// One row: its fixed capture is clean, its broken one has one violation of the checker's.
void expect_reported_at_the_breaking_frame(const Row& r) {
  const std::vector<Violation> fixed = analyze(r.capture(false));
  EXPECT_TRUE(fixed.empty()) << "the fixed capture gives" << listed(fixed);
  const std::vector<Violation> all = analyze(r.capture(true));
  const std::set<std::string_view> own = clauses_of(r.checker);
  ASSERT_TRUE(own.count(r.clause)) << "the checker judges no " << r.clause;
  std::vector<Violation> found;
  for (const Violation& v : all) {
    if (own.count(v.clause)) found.push_back(v);
  }
  ASSERT_EQ(found.size(), 1u) << "the broken capture gives" << listed(all);
  // Nor does any other checker report the right frames after it.
  EXPECT_EQ(all.size(), 1u) << "the broken capture gives" << listed(all);
  EXPECT_EQ(found[0].frame, r.frame) << listed(all);
  EXPECT_EQ(found[0].clause, r.clause) << listed(all);
  if (r.psn) {
    EXPECT_NE(found[0].text.find(hex(*r.psn)), std::string::npos) << found[0].text;
  }
}

TEST(CheckerAttribution, EachViolationIsReportedAtTheFrameThatBreaksTheRuleAndOnlyThere) {
  for (const Row& r : rows()) {
    SCOPED_TRACE(std::string(r.checker) + " " + std::string(r.clause));
    expect_reported_at_the_breaking_frame(r);
  }
}

// Two MSNs behind the right count: the second is judged against the count (3), not against
// the first wrong MSN (1), so both are reported.
TEST(CheckerAttribution, AnMsnAfterOneThatWentBackIsJudgedAgainstTheRightCount) {
  const std::vector<Violation> found = analyze({send_only(5), ack(5, 1), send_only(6), ack(6, 2),
                                                send_only(7), ack(7, 3), ack(7, 1), ack(7, 2)});
  ASSERT_EQ(found.size(), 2u) << listed(found);
  EXPECT_EQ(found[0].frame, 7u);
  EXPECT_EQ(found[1].frame, 8u);
  EXPECT_EQ(found[1].clause, "MR-AK-03");
}

// A packet the sender built before an ACK reached it is captured after the ACK: within the
// reaction time (2 us) it is not judged by what the ACK reported; after it, it is.
TEST(CheckerAttribution, APsnSentAgainWithinTheReactionTimeOfItsAckIsNotJudged) {
  auto resent_after = [](uint64_t gap_ns) {
    return analyze(
        {ext_send_only(5, 0xc105), ext_send_only(6, 0xc105), ext_ack(6),
         with(retransmitted(ext_send_only(5, 0xc106)), [gap_ns](Frame& f) { f.gap_ns = gap_ns; })});
  };
  EXPECT_TRUE(resent_after(2'000).empty()) << listed(resent_after(2'000));
  const std::vector<Violation> late = resent_after(2'001);
  ASSERT_EQ(late.size(), 1U) << listed(late);
  EXPECT_EQ(late[0].clause, "MR-SA-04");
}

// The ext-retransmission checker's findings in a capture, by clause.
std::vector<std::string> retransmission_findings(const Capture& c) {
  std::vector<std::string> out;
  for (const Violation& v : analyze(c)) {
    if (v.clause == "MR-SA-04" || v.clause == "MR-SA-12") out.emplace_back(v.clause);
  }
  return out;
}

Frame sacking(uint32_t cumulative, std::initializer_list<uint32_t> sacked) {
  Frame f = ext_ack(cumulative);
  const uint32_t ref = (cumulative + 1) & ~7U & 0xffffffU;  // bits from the SACK reference
  f.p.sacketh->sack_ref = ref;
  uint64_t bits = 0;
  for (uint32_t p : sacked) bits |= uint64_t{1} << ((p - ref) & 0xffffffU);
  f.p.sacketh->bitmap = bits;
  return f;
}
Frame later(Frame f, uint64_t gap_ns) {
  f.gap_ns = gap_ns;
  return f;
}

TEST(CheckerAttribution, APsnABitmapReportedIsNotSentAgainOnceTheReportIsInForce) {
  const Capture sent = {ext_send_only(5, 0xc105), ext_send_only(6, 0xc105),
                        ext_send_only(7, 0xc105), ext_send_only(8, 0xc105), sacking(5, {7, 8})};
  Capture resent = sent;
  resent.push_back(later(retransmitted(ext_send_only(7, 0xc106)), 3'000));
  EXPECT_EQ(retransmission_findings(resent), (std::vector<std::string>{"MR-SA-04"}));
  Capture hole = sent;  // 6 was not reported: its retransmission is right
  hole.push_back(later(retransmitted(ext_send_only(6, 0xc106)), 3'000));
  EXPECT_TRUE(retransmission_findings(hole).empty()) << listed(analyze(hole));
}

TEST(CheckerAttribution, ABitmapWhoseOffsetIsNotAMultipleOf8OrAnAckWithABadIcrcReportsNothing) {
  Frame odd = sacking(5, {7, 8});
  odd.p.sacketh->sack_offset = 4;  // the sender ignores such a bitmap (section 21.2)
  Frame corrupt = sacking(5, {7, 8});
  corrupt.options.fill_icrc = false;  // ICRC 0: the sender drops the ACK
  for (const Frame& ack : {odd, corrupt}) {
    const Capture c = {ext_send_only(5, 0xc105),
                       ext_send_only(6, 0xc105),
                       ext_send_only(7, 0xc105),
                       ext_send_only(8, 0xc105),
                       ack,
                       later(retransmitted(ext_send_only(7, 0xc106)), 3'000)};
    EXPECT_TRUE(retransmission_findings(c).empty()) << listed(analyze(c));
  }
}

TEST(CheckerAttribution, PsnsAcrossTheTwentyFourBitWrapAreJudgedInOrder) {
  const Capture c = {ext_send_only(0xfffffe, 0xc105),
                     ext_send_only(0xffffff, 0xc105),
                     ext_send_only(0, 0xc105),
                     ext_send_only(1, 0xc105),
                     ext_ack(0xffffff),
                     later(retransmitted(ext_send_only(1, 0xc106)), 3'000),
                     retransmitted(ext_send_only(0xfffffe, 0xc106))};
  const std::vector<Violation> found = analyze(c);
  ASSERT_EQ(retransmission_findings(c), (std::vector<std::string>{"MR-SA-04"})) << listed(found);
  EXPECT_NE(listed(found).find("0xfffffe"), std::string::npos) << listed(found);
}

}  // namespace
}  // namespace mr::analyze

namespace mr::analyze {
namespace {

// Go-back-N from a MIDDLE (a NAK for PSN 4): the retransmitted MIDDLE and LAST are held to
// the same DMA length as the first ones, so a right retransmission is no violation and a
// short LAST after it is one.
TEST(CheckerAttribution, AWriteRetransmittedFromAMiddleIsHeldToItsDmaLength) {
  const Capture sent = {
      write(wire::kOpRcRdmaWriteFirst, 3, 1024, 3000), write(wire::kOpRcRdmaWriteMiddle, 4, 1024),
      write(wire::kOpRcRdmaWriteMiddle, 4, 1024), write(wire::kOpRcRdmaWriteLast, 5, 952)};
  EXPECT_TRUE(analyze(sent).empty()) << listed(analyze(sent));
  Capture short_last = sent;
  short_last.back() = write(wire::kOpRcRdmaWriteLast, 5, 900);
  const std::vector<Violation> found = analyze(short_last);
  ASSERT_EQ(found.size(), 1u) << listed(found);
  EXPECT_EQ(found[0].frame, 4u);
  EXPECT_EQ(found[0].clause, "MR-MP-07");
}

}  // namespace
}  // namespace mr::analyze
