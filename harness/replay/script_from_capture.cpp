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

constexpr size_t kMemLineBytes = 2048;  // one write_mem line stays readable

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
  return va == base ? "A.va" : "A.va+" + hex(va - base);
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

uint32_t path_mtu(const RecordedConnection& c) {
  size_t largest = 0;
  for (const auto& p : c.packets) largest = std::max(largest, p.payload.size());
  for (uint32_t mtu : {256U, 512U, 1024U, 2048U, 4096U})
    if (largest <= mtu) return mtu;
  return 4096;
}

std::string packet_line(const RecordedPacket& p, uint32_t psn0, uint64_t va_base) {
  const auto& w = p.decoded.packet;
  std::string s =
      "BTH(opcode=" + wire::opcode_name(w.bth.opcode) + ", psn=" + psn_symbol(w.bth.psn, psn0);
  if (p.from_requester && w.bth.ackreq) s += ", ackreq=1";
  if (w.bth.solicited) s += ", solicited=1";
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

}  // namespace

Expected<std::string, std::string> script_from_connection(const RecordedConnection& c,
                                                          const ScriptOptions& o) {
  const RecordedPacket* first = nullptr;
  for (const auto& p : c.packets) {
    if (p.from_requester) {
      first = &p;
      break;
    }
  }
  if (first == nullptr) return Unexpected(o.capture_name + ": the connection has no request");
  const uint32_t psn0 = first->decoded.packet.bth.psn;

  // The DUT memory the exchange touches: [base, end).
  uint64_t base = UINT64_MAX;
  uint64_t end = 0;
  for (const auto& p : c.packets) {
    if (!p.from_requester) continue;
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
  if (base == UINT64_MAX) base = end = 0;
  const uint64_t mr_len = std::max<uint64_t>(uint64_t{1} << 20, (end - base + 4095) / 4096 * 4096);

  // Receive WQEs: one per SEND message and per WRITE with immediate; as long as the longest.
  // A message the recorded responder answered with an RNR NAK found no WQE then: its WQE
  // is posted right after the last RNR NAK for it, the others before the exchange.
  std::map<uint32_t, size_t> last_rnr_nak;  // PSN -> index of the packet
  for (size_t k = 0; k < c.packets.size(); ++k) {
    const auto& w = c.packets[k].decoded.packet;
    if (!c.packets[k].from_requester && w.aeth && wire::is_rnr_nak(w.aeth->syndrome))
      last_rnr_nak[w.bth.psn] = k;
  }
  size_t receives = 0;
  size_t longest = 0;
  size_t message = 0;
  std::optional<uint32_t> message_psn;
  std::map<size_t, size_t> deferred;  // packet index -> WQEs to post after it
  std::set<uint32_t> seen_psns;       // a retransmitted SEND consumes no second WQE
  for (const auto& p : c.packets) {
    if (!p.from_requester) continue;
    const auto& i = info(p);
    if (!i.is(wire::kSend) && !(i.is(wire::kWrite) && i.is(wire::kImmediate))) continue;
    if (!seen_psns.insert(p.decoded.packet.bth.psn).second) continue;
    if (!message_psn) message_psn = p.decoded.packet.bth.psn;
    if (i.is(wire::kSend)) message += p.payload.size();
    if (i.is(wire::kEnd)) {
      if (auto it = last_rnr_nak.find(*message_psn); it != last_rnr_nak.end()) {
        ++deferred[it->second];
      } else {
        ++receives;
      }
      longest = std::max(longest, message);
      message = 0;
      message_psn.reset();
    }
  }

  // What the recorded responder's memory held: READ data and atomics' original values.
  std::map<uint64_t, std::vector<uint8_t>> memory;  // DUT VA -> bytes
  std::set<uint64_t> atomic_targets;
  for (size_t k = 0; k < c.packets.size(); ++k) {
    const auto& req = c.packets[k];
    if (!req.from_requester) continue;
    const auto& w = req.decoded.packet;
    const auto& i = info(req);
    if (i.is(wire::kRead) && w.reth && w.reth->dlen > 0 && !memory.contains(w.reth->va)) {
      std::vector<uint8_t> data;
      std::set<uint32_t> used;
      for (size_t r = k + 1; r < c.packets.size() && data.size() < w.reth->dlen; ++r) {
        const auto& resp = c.packets[r];
        const uint32_t off = (resp.decoded.packet.bth.psn - w.bth.psn) & wire::kPsnMask;
        if (resp.from_requester || !info(resp).is(wire::kRead) || used.contains(off)) continue;
        if (off != used.size()) continue;  // in PSN order, each response once
        used.insert(off);
        data.insert(data.end(), resp.payload.begin(), resp.payload.end());
      }
      if (!data.empty()) memory[w.reth->va] = std::move(data);
    }
    if (i.is(wire::kAtomic) && w.atomic_eth && !atomic_targets.contains(w.atomic_eth->va)) {
      atomic_targets.insert(w.atomic_eth->va);
      for (size_t r = k + 1; r < c.packets.size(); ++r) {
        const auto& resp = c.packets[r];
        if (resp.from_requester || !resp.decoded.packet.atomic_ack_eth ||
            resp.decoded.packet.bth.psn != w.bth.psn)
          continue;
        std::vector<uint8_t> orig(8);
        const uint64_t v = resp.decoded.packet.atomic_ack_eth->orig;
        for (int b = 0; b < 8; ++b) orig[b] = static_cast<uint8_t>(v >> (8 * b));  // host order
        memory[w.atomic_eth->va] = std::move(orig);
        break;
      }
    }
  }

  // The clauses a replay judges: the responder's answers to what the capture asks of it.
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
  std::string s;
  s += "# tp: " + o.tp_id + "            clause: " + clauses + "\n";
  s += "# pics: " + pics + "            group: BV\n";
  s += "# purpose: replays connection " + std::to_string(o.connection_index) + " of " +
       o.capture_name + " (requester " + c.requester_ip + " QPN " + hex(c.requester_qpn) +
       " -> responder " + c.responder_ip + " QPN " + hex(c.responder_qpn) + ", frames " +
       std::to_string(c.packets.front().frame_number) + "-" +
       std::to_string(c.packets.back().frame_number) +
       "): the DUT, as the responder, must answer as the recorded one did.\n";
  s += "# positive-path: a recorded exchange, not a targeted fault\n";
  // An RNR NAK carries the responder's min_rnr_timer: the DUT is set up the same way.
  std::string rnr_timer;
  if (!last_rnr_nak.empty()) {
    const auto& nak = c.packets[last_rnr_nak.begin()->second].decoded.packet;
    rnr_timer = ", min_rnr_timer=" + std::to_string(nak.aeth->syndrome & 0x1f);
  }
  s += "dut qp A = create_qp(type=RC, mtu=" + std::to_string(path_mtu(c)) +
       ", mr_len=" + hex(mr_len) + rnr_timer + ")\n";
  if (receives > 0) {
    s += "dut post_recv A count=" + std::to_string(receives) +
         " len=" + std::to_string(std::max<size_t>(longest, 1)) + "\n";
  }
  for (const auto& [va, bytes] : memory) {
    for (size_t at = 0; at < bytes.size(); at += kMemLineBytes) {
      const size_t n = std::min(kMemLineBytes, bytes.size() - at);
      s += "dut write_mem A offset=" + hex(va - base + at) + " data=" +
           bytes_literal({bytes.begin() + static_cast<std::ptrdiff_t>(at),
                          bytes.begin() + static_cast<std::ptrdiff_t>(at + n)}) +
           "\n";
    }
  }
  uint64_t previous_ns = first->t_ns;
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
    s += std::string(pad) + (p.from_requester ? "< " : "> ") + packet_line(p, psn0, base) + "\n";
    if (auto it = deferred.find(k); it != deferred.end()) {
      s += "dut post_recv A count=" + std::to_string(it->second) +
           " len=" + std::to_string(std::max<size_t>(longest, 1)) + "\n";
    }
  }
  return s;
}

}  // namespace mr::replay
