#include "harness/replay/script_from_capture.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <map>
#include <optional>
#include <set>

#include "reference/wire/aeth_syndrome.h"
#include "reference/wire/opcode.h"
#include "reference/wire/psn.h"

namespace mr::replay {

namespace {

constexpr size_t kMemLineBytes = 2048;    // one write_mem line stays readable
constexpr size_t kOmittedListed = 20;     // undecodable frames named one by one
constexpr uint64_t kMinRegion = 1 << 20;  // the DUT region is at least the default 1 MiB
constexpr uint64_t kPageBytes = 4096;
// At most what a tester QP may register: a replay is a debugging run, and a capture whose
// requests span more (pcaps/analyze/ps11: one READ of 2 GiB, 8 million responses) is refused.
constexpr uint64_t kMaxRegion = uint64_t{256} << 20;

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%" PRIx64, v);
  return buf;
}

std::string psn_symbol(uint32_t psn, uint32_t psn0) {
  const int32_t d = wire::psn_diff(psn, psn0);
  if (d == 0) return "P";
  if (d < 0) return "P-" + std::to_string(-d);
  return "P+" + std::to_string(d);
}

std::string va_symbol(uint64_t va, uint64_t base) {
  if (va == base) return "A.va";
  return va > base ? "A.va+" + hex(va - base) : "A.va-" + hex(base - va);  // below: a refused one
}

// A byte string literal; a run of one byte value is written as b"\x5a" * N.
std::string bytes_literal(const std::vector<uint8_t>& b) {
  auto one = [](uint8_t x) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "\\x%02x", x);
    return std::string(buf);
  };
  if (!b.empty() && std::all_of(b.begin(), b.end(), [&](uint8_t x) { return x == b[0]; }))
    return "b\"" + one(b[0]) + "\" * " + std::to_string(b.size());
  std::string s = "b\"";
  for (uint8_t x : b) s += one(x);
  return s + "\"";
}

const wire::OpcodeInfo& info(const RecordedPacket& p) {
  return *wire::opcode_info(p.decoded.packet.bth.opcode);  // RC opcodes only, by extraction
}

bool answers_recorded(const RecordedConnection& c) {
  return std::ranges::any_of(c.packets, [](const auto& p) { return !p.from_requester; });
}

uint32_t path_mtu(const RecordedConnection& c) {
  size_t largest = 0;
  for (const auto& p : c.packets) largest = std::max(largest, p.payload.size());
  for (uint32_t mtu : {256U, 512U, 1024U, 2048U, 4096U})
    if (largest <= mtu) return mtu;
  return 4096;
}

uint64_t page_align(uint64_t n) { return (n + kPageBytes - 1) / kPageBytes * kPageBytes; }

// The DUT memory the requests name: [base, end).
struct MemoryExtent {
  uint64_t base = 0;
  uint64_t end = 0;
  uint64_t span() const { return end - base; }
};

// A request the recorded responder refused with a NAK (PSN sequence errors aside) named
// memory it never touched (RC-RD-007: a READ of 2 GiB + 1): it does not size the region.
MemoryExtent memory_extent(const RecordedConnection& c) {
  std::set<uint32_t> refused;
  for (const auto& p : c.packets) {
    const auto& w = p.decoded.packet;
    if (!p.from_requester && w.aeth && wire::is_nak(w.aeth->syndrome) &&
        w.aeth->syndrome != wire::kNakPsnSequenceError)
      refused.insert(w.bth.psn);
  }
  uint64_t base = UINT64_MAX;
  uint64_t end = 0;
  for (const auto& p : c.packets) {
    if (!p.from_requester || refused.contains(p.decoded.packet.bth.psn)) continue;
    const auto& w = p.decoded.packet;
    if (w.reth && w.reth->dlen > 0) {  // a zero-length RETH names no memory (MR-MP-06)
      base = std::min<uint64_t>(base, w.reth->va);
      end = std::max<uint64_t>(end, w.reth->va + w.reth->dlen);
    }
    if (w.atomic_eth) {
      base = std::min<uint64_t>(base, w.atomic_eth->va);
      end = std::max<uint64_t>(end, w.atomic_eth->va + 8);
    }
  }
  return base == UINT64_MAX ? MemoryExtent{} : MemoryExtent{base, end};
}

// Receive WQEs: one per SEND message and per WRITE with immediate, as long as the longest.
// A message the recorded responder answered with an RNR NAK found no WQE then: its WQE is
// posted right after the last RNR NAK for it, the others before the exchange.
struct ReceivePlan {
  size_t before = 0;
  size_t length = 1;
  std::map<size_t, size_t> after_packet;  // packet index -> WQEs to post after it

  // The bytes the largest post_recv line spans. Every line starts at the same offset: no
  // replay checks what a SEND put in memory, so later WQEs may reuse earlier ones' bytes.
  uint64_t bytes() const {
    size_t most = before;
    for (const auto& [k, n] : after_packet) most = std::max(most, n);
    return uint64_t{most} * length;
  }
};

ReceivePlan plan_receives(const RecordedConnection& c) {
  std::map<uint32_t, size_t> last_rnr_nak;  // PSN -> index of the packet
  for (size_t k = 0; k < c.packets.size(); ++k) {
    const auto& w = c.packets[k].decoded.packet;
    if (!c.packets[k].from_requester && w.aeth && wire::is_rnr_nak(w.aeth->syndrome))
      last_rnr_nak[w.bth.psn] = k;
  }
  ReceivePlan plan;
  size_t message = 0;
  std::optional<uint32_t> message_psn;
  // One WQE per message, also for one the capture never finishes (a new FIRST, or the end).
  auto close_message = [&] {
    if (auto it = last_rnr_nak.find(*message_psn); it != last_rnr_nak.end()) {
      ++plan.after_packet[it->second];
    } else {
      ++plan.before;
    }
    plan.length = std::max(plan.length, message);
    message = 0;
    message_psn.reset();
  };
  std::set<uint32_t> seen_psns;  // a retransmitted SEND consumes no second WQE
  for (const auto& p : c.packets) {
    if (!p.from_requester) continue;
    const auto& i = info(p);
    if (!i.is(wire::kSend) && !(i.is(wire::kWrite) && i.is(wire::kImmediate))) continue;
    if (!seen_psns.insert(p.decoded.packet.bth.psn).second) continue;
    if (message_psn && i.is(wire::kStart)) close_message();
    if (!message_psn) message_psn = p.decoded.packet.bth.psn;
    if (i.is(wire::kSend)) message += p.payload.size();
    if (i.is(wire::kEnd)) close_message();
  }
  if (message_psn) close_message();
  return plan;
}

// The DUT's one region: the memory the requests name at their recorded distance from the
// lowest VA (A.va), then the receive buffers on the next page. Receive buffers at A.va would
// take the bytes a later READ or atomic of the lowest VA must find (issue 26).
struct DutLayout {
  uint64_t va_base = 0;         // the recorded VA that A.va stands for
  uint64_t receive_offset = 0;  // 0 when the requests name no memory
  uint64_t region_length = 0;
};

DutLayout layout(const MemoryExtent& extent, const ReceivePlan& receives) {
  const uint64_t receive_offset = page_align(extent.span());
  return {.va_base = extent.base,
          .receive_offset = receive_offset,
          .region_length = std::max(kMinRegion, page_align(receive_offset + receives.bytes()))};
}

// The READ's data as the responses after request `k` carried it, in PSN order, each once.
std::vector<uint8_t> read_data(const RecordedConnection& c, size_t k) {
  const auto& w = c.packets[k].decoded.packet;
  std::vector<uint8_t> data;
  std::set<uint32_t> used;
  for (size_t r = k + 1; r < c.packets.size() && data.size() < w.reth->dlen; ++r) {
    const auto& resp = c.packets[r];
    const uint32_t off = (resp.decoded.packet.bth.psn - w.bth.psn) & wire::kPsnMask;
    if (resp.from_requester || !info(resp).is(wire::kRead) || used.contains(off)) continue;
    if (off != used.size()) continue;
    used.insert(off);
    data.insert(data.end(), resp.payload.begin(), resp.payload.end());
  }
  return data;
}

// The atomic's original value, from its ATOMIC_ACKNOWLEDGE, as the 8 bytes memory holds.
std::optional<std::vector<uint8_t>> atomic_original(const RecordedConnection& c, size_t k) {
  const uint32_t psn = c.packets[k].decoded.packet.bth.psn;
  for (size_t r = k + 1; r < c.packets.size(); ++r) {
    const auto& resp = c.packets[r].decoded.packet;
    if (c.packets[r].from_requester || !resp.atomic_ack_eth || resp.bth.psn != psn) continue;
    std::vector<uint8_t> orig(8);
    const uint64_t v = resp.atomic_ack_eth->orig;
    for (int b = 0; b < 8; ++b) orig[b] = static_cast<uint8_t>(v >> (8 * b));  // host order
    return orig;
  }
  return std::nullopt;
}

// What the recorded responder's memory held: READ data and atomics' original values.
std::map<uint64_t, std::vector<uint8_t>> recorded_memory(const RecordedConnection& c) {
  std::map<uint64_t, std::vector<uint8_t>> memory;  // DUT VA -> bytes
  for (size_t k = 0; k < c.packets.size(); ++k) {
    if (!c.packets[k].from_requester) continue;
    const auto& w = c.packets[k].decoded.packet;
    const auto& i = info(c.packets[k]);
    if (i.is(wire::kRead) && w.reth && w.reth->dlen > 0 && !memory.contains(w.reth->va)) {
      if (auto data = read_data(c, k); !data.empty()) memory[w.reth->va] = std::move(data);
    }
    if (i.is(wire::kAtomic) && w.atomic_eth && !memory.contains(w.atomic_eth->va)) {
      if (auto orig = atomic_original(c, k)) memory[w.atomic_eth->va] = std::move(*orig);
    }
  }
  return memory;
}

RecordedPacket ack(const RecordedPacket& request, uint32_t psn, uint32_t msn) {
  RecordedPacket a;
  a.from_requester = false;
  a.synthesized = true;
  a.t_ns = request.t_ns;
  a.decoded.packet.bth.opcode = wire::kOpRcAcknowledge;
  a.decoded.packet.bth.psn = psn;
  a.decoded.packet.aeth = wire::Aeth{wire::kSyndromeAck, msn};
  return a;
}

// Section 11's segmentation rule (MR-MP-07, MR-MP-08): FIRST and MIDDLE carry exactly the
// PMTU, LAST 1 to PMTU bytes, ONLY at most the PMTU.
bool breaks_segmentation(const RecordedPacket& p, uint32_t pmtu) {
  const auto& i = info(p);
  if (!i.is(wire::kSend) && !i.is(wire::kWrite)) return false;
  const size_t len = p.payload.size();
  if (i.is(wire::kFirst) || i.is(wire::kMiddle)) return len != pmtu;
  return len > pmtu || (i.is(wire::kLast) && len == 0);
}

// A capture of the requester alone (its peer never answered, as in pcaps/rxe): the answers
// a conforming responder owes are written from the spec, since the capture has none. Each
// new request packet with AckReq draws an ACK of its PSN (MR-AK-01), each duplicate SEND or
// WRITE an ACK of ePSN - 1 (MR-AK-11), with the MSN of the messages done (MR-AK-03); a new
// packet that breaks the segmentation rule draws NAK 0x61 and the QP answers no more
// (MR-MP-07/08). READs, atomics and PSNs ahead of ePSN need data or a NAK the capture cannot
// tell: refused.
Expected<RecordedConnection, std::string> with_spec_answers(const RecordedConnection& c,
                                                            const std::string& capture) {
  RecordedConnection out = c;
  out.packets.clear();
  uint32_t epsn = c.packets.front().decoded.packet.bth.psn;
  uint32_t msn = 0;
  bool in_error = false;  // after a NAK 0x61 the QP is in Error and silent (MR-QS-04)
  const uint32_t pmtu = path_mtu(c);
  for (const auto& p : c.packets) {
    out.packets.push_back(p);
    if (in_error) continue;
    const auto& i = info(p);
    const uint32_t psn = p.decoded.packet.bth.psn;
    const std::string where = capture + ": frame " + std::to_string(p.frame_number) + ": ";
    if (i.is(wire::kRead) || i.is(wire::kAtomic)) {
      return Unexpected(where + wire::opcode_name(p.decoded.packet.bth.opcode) +
                        ", and the capture holds no answer: replay cannot tell the data a " +
                        "responder returns");
    }
    const int32_t ahead = wire::psn_diff(psn, epsn);
    if (ahead > 0) {
      return Unexpected(where + "PSN " + hex(psn) + " is ahead of the expected " + hex(epsn) +
                        ", and the capture holds no answer to replay");
    }
    if (ahead < 0) {
      out.packets.push_back(ack(p, wire::psn_add(epsn, -1), msn));
      continue;
    }
    if (breaks_segmentation(p, pmtu)) {
      RecordedPacket nak = ack(p, psn, msn);
      nak.decoded.packet.aeth->syndrome = wire::kNakInvalidRequest;
      out.packets.push_back(std::move(nak));
      in_error = true;
      continue;
    }
    epsn = wire::psn_add(epsn, 1);
    if (i.is(wire::kEnd)) msn = (msn + 1) & wire::u24::kMax;
    if (p.decoded.packet.bth.ackreq) out.packets.push_back(ack(p, psn, msn));
  }
  return out;
}

std::string packet_line(const RecordedPacket& p, uint32_t psn0, uint64_t va_base) {
  const auto& w = p.decoded.packet;
  std::string s =
      "BTH(opcode=" + wire::opcode_name(w.bth.opcode) + ", psn=" + psn_symbol(w.bth.psn, psn0);
  if (p.from_requester && w.bth.ackreq) s += ", ackreq=1";
  if (w.bth.solicited) s += ", solicited=1";
  // A request's wrong ICRC goes out as recorded: the DUT must drop it (MR-IC-02).
  if (p.from_requester && !p.decoded.icrc_ok()) s += ", icrc=" + hex(w.icrc);
  s += ")";
  if (w.reth && w.reth->dlen == 0) {
    // Zero length: the VA and R_Key are not checked (MR-MP-06), so they stay as recorded.
    s += "/RETH(va=" + hex(w.reth->va) + ", rkey=" + hex(w.reth->rkey) + ", dlen=0)";
  } else if (w.reth) {
    s += "/RETH(va=" + va_symbol(w.reth->va, va_base) +
         ", rkey=A.rkey, dlen=" + std::to_string(static_cast<uint32_t>(w.reth->dlen)) + ")";
  }
  if (w.atomic_eth) {
    s += "/AtomicETH(va=" + va_symbol(w.atomic_eth->va, va_base) +
         ", rkey=A.rkey, swap=" + hex(w.atomic_eth->swap) + ", comp=" + hex(w.atomic_eth->comp) +
         ")";
  }
  if (w.imm_dt) s += "/ImmDt(imm=" + hex(w.imm_dt->imm) + ")";
  if (w.ieth) s += "/IETH(rkey=A.rkey)";
  if (w.aeth) {
    const uint8_t syndrome = w.aeth->syndrome;
    // An ACK's credit count is the responder's own business (rxe sends only wire::kSyndromeAck).
    const std::string name = wire::is_ack(syndrome) ? "ACK" : hex(syndrome);
    s += "/AETH(syndrome=" + name + ", msn=" + std::to_string(static_cast<uint32_t>(w.aeth->msn)) +
         ")";
  }
  if (w.atomic_ack_eth) s += "/AtomicAckETH(orig=" + hex(w.atomic_ack_eth->orig) + ")";
  if (!p.payload.empty()) s += "/Raw(load=" + bytes_literal(p.payload) + ")";
  return s;
}

uint64_t last_frame(const RecordedConnection& c) {
  for (auto p = c.packets.rbegin(); p != c.packets.rend(); ++p) {
    if (!p->synthesized) return p->frame_number;
  }
  return 0;
}

// The script's metadata: what a replay judges, and where the exchange came from.
std::string metadata(const RecordedConnection& c, const ScriptOptions& o) {
  bool reads = false;
  bool atomics = false;
  bool writes = false;
  for (const auto& p : c.packets) {
    if (!p.from_requester) continue;
    reads = reads || info(p).is(wire::kRead);
    atomics = atomics || info(p).is(wire::kAtomic);
    writes = writes || info(p).is(wire::kWrite);
  }
  std::string clauses = "MR-AK-01 MR-AK-03";
  std::string pics = "rc.send";
  if (writes) pics += " and rc.write";
  if (reads) {
    clauses += " MR-RD-01";
    pics += " and rc.read";
  }
  if (atomics) {
    clauses += " MR-AT-01 MR-AT-02";
    pics += " and rc.atomic";
  }
  return "# tp: " + o.tp_id + "            clause: " + clauses + "\n" + "# pics: " + pics +
         "            group: BV\n" + "# purpose: replays connection " +
         std::to_string(o.connection_index) + " of " + o.capture_name + " (requester " +
         c.requester_ip + (c.requester_qpn ? " QPN " + hex(c.requester_qpn) : std::string()) +
         " -> responder " + c.responder_ip + " QPN " + hex(c.responder_qpn) + ", frames " +
         std::to_string(c.packets.front().frame_number) + "-" + std::to_string(last_frame(c)) +
         "): the DUT, as the responder, must answer as the recorded one did.\n" +
         "# positive-path: a recorded exchange, not a targeted fault\n";
}

// Plain comments: what the script changed from the capture, and why.
std::string notes(const RecordedConnection& recorded, const RecordedConnection& c) {
  std::string s;
  if (!answers_recorded(recorded)) {
    s += "# The capture holds no answer from the responder: the answers below are what the\n"
         "# spec makes a conforming responder send (MR-AK-01, MR-AK-03, MR-AK-11, MR-MP-08).\n";
  }
  for (const auto& p : c.packets) {
    if (p.synthesized || p.decoded.icrc_ok()) continue;
    s += "# frame " + std::to_string(p.frame_number) + ": its ICRC " + hex(p.decoded.packet.icrc) +
         " is wrong (" + hex(p.decoded.icrc_computed) + " is right): " +
         (p.from_requester ? "sent as recorded, which a DUT drops (MR-IC-02)"
                           : "a conforming DUT answers with a right one") +
         ".\n";
  }
  size_t ext = 0;
  for (const auto& p : c.packets) ext += !p.synthesized && p.decoded.packet.bth.is_ext() ? 1 : 0;
  if (ext > 0) {
    s += "# " + std::to_string(ext) +
         " of the frames are Ext packets (BTH TVer 1, spec Part II): " +
         "the test language has no Part II layers yet, so each is replayed as the base packet " +
         "of its opcode, without its MXH, SACKETH, SECH or tag, and with TVer 0.\n";
  }
  const auto& first = c.packets.front().decoded.packet;
  if (first.vlan && first.vlan->vlan == 0) {
    s += "# The requests carry an 802.1Q priority tag (VID 0, PCP " +
         std::to_string(static_cast<unsigned>(first.vlan->prio)) +
         "): the replayed connection is untagged.\n";
  }
  if (!recorded.file_error.empty()) {
    s += "# The capture file is cut short (" + recorded.file_error + "): the exchange ends with " +
         "frame " + std::to_string(recorded.packets.back().frame_number) + ".\n";
  }
  for (size_t k = 0; k < recorded.omitted.size() && k < kOmittedListed; ++k) {
    const auto& f = recorded.omitted[k];
    s += "# frame " + std::to_string(f.frame_number) + " is not replayed: " + f.reason + "\n";
  }
  if (recorded.omitted.size() > kOmittedListed) {
    s += "# ... and " + std::to_string(recorded.omitted.size() - kOmittedListed) +
         " more frames that could not be decoded (metaroce analyze names each).\n";
  }
  return s;
}

// The path of the recorded connection: IPv6, a VLAN and its priority.
std::string path_options(const RecordedConnection& c) {
  const auto& first = c.packets.front().decoded.packet;
  std::string s;
  if (std::holds_alternative<wire::Ipv6>(first.ip)) s += ", ipv6=1";
  if (first.vlan && first.vlan->vlan != 0) {
    s += ", vlan=" + std::to_string(static_cast<unsigned>(first.vlan->vlan)) +
         ", pcp=" + std::to_string(static_cast<unsigned>(first.vlan->prio));
  }
  return s;
}

std::string post_recv_line(size_t count, size_t length, const DutLayout& dut) {
  std::string s =
      "dut post_recv A count=" + std::to_string(count) + " len=" + std::to_string(length);
  if (dut.receive_offset > 0) s += " offset=" + hex(dut.receive_offset);
  return s + "\n";
}

// The DUT's QP, its receive WQEs and the memory the recorded responder read from.
std::string setup(const RecordedConnection& c, const DutLayout& dut, const ReceivePlan& receives) {
  std::string rnr_timer;  // an RNR NAK carries the responder's min_rnr_timer: set the DUT so
  for (const auto& p : c.packets) {
    const auto& w = p.decoded.packet;
    if (!p.from_requester && w.aeth && wire::is_rnr_nak(w.aeth->syndrome)) {
      rnr_timer = ", min_rnr_timer=" + std::to_string(w.aeth->syndrome & 0x1f);
      break;
    }
  }
  std::string s = "dut qp A = create_qp(type=RC, mtu=" + std::to_string(path_mtu(c)) +
                  ", mr_len=" + hex(dut.region_length) + rnr_timer + path_options(c) + ")\n";
  if (dut.receive_offset > 0 && receives.bytes() > 0) {
    s += "# Receive buffers at offset " + hex(dut.receive_offset) +
         ": apart from the memory the RDMA requests name.\n";
  }
  if (receives.before > 0) s += post_recv_line(receives.before, receives.length, dut);
  for (const auto& [va, bytes] : recorded_memory(c)) {
    for (size_t at = 0; at < bytes.size(); at += kMemLineBytes) {
      const size_t n = std::min(kMemLineBytes, bytes.size() - at);
      s += "dut write_mem A offset=" + hex(va - dut.va_base + at) + " data=" +
           bytes_literal({bytes.begin() + static_cast<std::ptrdiff_t>(at),
                          bytes.begin() + static_cast<std::ptrdiff_t>(at + n)}) +
           "\n";
    }
  }
  return s;
}

// The exchange: requests at their recorded pacing (`+dt`), answers at any time (`*`).
std::string exchange(const RecordedConnection& c, const DutLayout& dut,
                     const ReceivePlan& receives) {
  const uint32_t psn0 = c.packets.front().decoded.packet.bth.psn;
  std::string s;
  uint64_t previous_ns = c.packets.front().t_ns;
  bool started = false;
  for (size_t k = 0; k < c.packets.size(); ++k) {
    const auto& p = c.packets[k];
    std::string time;
    if (!p.from_requester) {
      time = "*";
    } else if (!started) {
      time = "0";
    } else {
      char buf[32];
      const uint64_t gap = p.t_ns > previous_ns ? p.t_ns - previous_ns : 0;
      std::snprintf(buf, sizeof buf, "+%.6f", static_cast<double>(gap) / 1e9);
      time = buf;
    }
    started = started || p.from_requester;
    previous_ns = p.t_ns;
    char pad[16];
    std::snprintf(pad, sizeof pad, "%-10s ", time.c_str());
    s += std::string(pad) + (p.from_requester ? "< " : "> ") + packet_line(p, psn0, dut.va_base) +
         "\n";
    if (auto it = receives.after_packet.find(k); it != receives.after_packet.end())
      s += post_recv_line(it->second, receives.length, dut);
  }
  return s;
}

}  // namespace

Expected<std::string, std::string> script_from_connection(const RecordedConnection& recorded,
                                                          const ScriptOptions& o) {
  const auto first = std::ranges::find_if(recorded.packets, &RecordedPacket::from_requester);
  if (first == recorded.packets.end())
    return Unexpected(o.capture_name + ": the connection has no request");
  RecordedConnection c = recorded;
  // Answers recorded before the first request belong to an earlier exchange.
  c.packets.erase(c.packets.begin(), c.packets.begin() + (first - recorded.packets.begin()));
  if (!answers_recorded(c)) {
    auto answered = with_spec_answers(c, o.capture_name);
    if (!answered) return Unexpected(answered.error());
    c = std::move(*answered);
  }
  const MemoryExtent extent = memory_extent(c);
  const ReceivePlan receives = plan_receives(c);
  const DutLayout dut = layout(extent, receives);
  if (dut.region_length > kMaxRegion) {
    // A base packet sent with TVer 1 reads as an Ext one: its RETH then comes from the bytes
    // after an MXH, which is how such a capture arrives here.
    std::string ext;
    for (const auto& p : c.packets) {
      if (p.synthesized || !p.decoded.packet.bth.is_ext() || !p.decoded.packet.reth) continue;
      ext += (ext.empty() ? "" : ", ") + std::to_string(p.frame_number);
    }
    if (!ext.empty()) {
      ext = " (frames " + ext + " are Ext packets, BTH TVer 1, whose RETH follows an MXH: " +
            "a base packet sent with TVer 1 reads so)";
    }
    const std::string buffers =
        receives.bytes() > 0
            ? " and its receive buffers " + std::to_string(receives.bytes()) + " more"
            : "";
    return Unexpected(o.capture_name + ": the requests span " + std::to_string(extent.span()) +
                      " bytes of the DUT's memory" + buffers + ", more than the " +
                      std::to_string(kMaxRegion >> 20) + " MiB a replay registers" + ext);
  }
  return metadata(c, o) + notes(recorded, c) + setup(c, dut, receives) + exchange(c, dut, receives);
}

}  // namespace mr::replay
