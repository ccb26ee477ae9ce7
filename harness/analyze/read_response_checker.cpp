// MR-RD-01: READ responses come as ONLY, or FIRST, MIDDLE..., LAST, ending at the READ's
// last PSN. MR-RD-02: they carry the READ request's PSNs, consecutively. MR-RD-03: FIRST,
// LAST and ONLY carry an ACK-type AETH (MIDDLE has none: the decoder reads no AETH there).
// MR-RD-09 (SHOULD): the answer to a READ reissued mid-range (a duplicate READ for a tail
// of a held READ) starts with FIRST or ONLY; starting it with MIDDLE or LAST is that
// clause's deviation, not a broken sequence (MR-RD-01 is about the READ as first asked).
// Either way the tracker resynchronises on the packet, so one event is one violation. So too
// for an answer that ends before the READ's last PSN (an ONLY for a READ of more packets, a
// LAST too early): the MIDDLE or LAST that goes on from it is no response without a FIRST.
// A response whose PSN breaks MR-RD-02 is reported at that response; the next one may follow
// it or the PSNs the READ asks for (flow_tracker.cpp, track_read_response), and is no second
// violation either way.
#include "harness/analyze/checkers.h"
#include "harness/analyze/flow_tracker.h"
#include "reference/wire/aeth_syndrome.h"
#include "reference/wire/psn.h"

namespace mr::analyze {
namespace {

class ReadResponseChecker final : public Checker {
 public:
  void check(const PacketContext& c, ViolationSink& sink) override {
    if (!c.is_response() || !c.is(wire::kRead)) return;
    const ResponderState& s = c.dir.resp;
    const uint32_t psn = c.psn();
    if (c.p.aeth && wire::syndrome_type(c.p.aeth->syndrome.value()) != wire::SyndromeType::kAck) {
      report_lazily(sink, c, "MR-RD-03", [&c] {
        return what(c) + " carries syndrome " + hex(c.p.aeth->syndrome.value(), 2) +
               ", not an ACK syndrome";
      });
    }
    if (c.is(wire::kStart)) {
      check_start(c, sink);
      return;
    }
    // The response the READ's sequence asks for after one misnumbered response, or after an
    // answer that ended too early (both reported at the packet that broke the sequence).
    const bool realigned = s.read_open && s.read_realign && psn == s.read_realign_psn;
    const bool resumed = resumes_cut_answer(s, c);
    const bool in_sequence = (s.read_open && (psn == s.read_next_psn || realigned)) || resumed;
    if (!in_sequence && c.dir.peer) {
      if (const PendingRequest* q = find_read_reissue(c.dir.peer->req, psn)) {
        report_lazily(sink, c, "MR-RD-09", [&c, q] {
          return "the answer to the READ reissued at PSN " + hex(q->psn) + " (" +
                 std::to_string(q->dlen) + " bytes, the tail of an earlier READ) starts " +
                 "with " + what(c) + "; it should start with READ_RESPONSE_FIRST or ONLY";
        });
        return;
      }
    }
    if (!s.read_open && !resumed) {
      report_lazily(sink, c, "MR-RD-01", [&c, psn] {
        return what(c) + " PSN " + hex(psn) + " without a READ_RESPONSE_FIRST";
      });
      return;
    }
    if (!in_sequence) {
      report_lazily(sink, c, "MR-RD-02", [&c, psn, &s] {
        return what(c) + " PSN " + hex(psn) + " does not follow the previous response PSN " +
               hex(wire::psn_add(s.read_next_psn, -1));
      });
      return;
    }
    if (!s.read_last_known) return;
    const uint32_t last = realigned ? s.read_realign_last_psn : s.read_last_psn;
    if (c.is(wire::kMiddle) && psn == last) {
      report_lazily(sink, c, "MR-RD-01", [psn] {
        return "READ_RESPONSE_MIDDLE at the READ's last PSN " + hex(psn) + " (LAST expected)";
      });
    } else if (c.is(wire::kLast) && psn != last) {
      report_lazily(sink, c, "MR-RD-01", [psn, last] {
        return "READ_RESPONSE_LAST at PSN " + hex(psn) + ", but the READ ends at PSN " + hex(last);
      });
    }
  }

 private:
  // Named only when reported: the packet path allocates nothing.
  static std::string what(const PacketContext& c) {
    return wire::opcode_name(c.p.bth.opcode.value());
  }

  // A FIRST or ONLY at a PSN no READ was sent with; `in`: the READ whose range holds it.
  static void report_missing_read(const PacketContext& c, ViolationSink& sink,
                                  const PendingRequest* in) {
    if (!in) {
      report_lazily(sink, c, "MR-RD-02", [&c] {
        return what(c) + " PSN " + hex(c.psn()) + " is no PSN of a READ request seen";
      });
      return;
    }
    report_lazily(sink, c, "MR-RD-02", [&c, in] {
      return what(c) + " PSN " + hex(c.psn()) + " is not the PSN " + hex(in->psn) +
             " of the READ it answers (" + std::to_string(in->dlen) +
             " bytes): its responses start there";
    });
  }

  static void check_start(const PacketContext& c, ViolationSink& sink) {
    const ResponderState& s = c.dir.resp;
    const uint32_t psn = c.psn();
    // Answering a READ reissued at this PSN abandons the previous response legitimately
    // (its tail was lost before the capture point or before the requester).
    const bool reissue = c.dir.peer && find_read_reissue(c.dir.peer->req, psn);
    if (s.read_open && !reissue) {
      report_lazily(sink, c, "MR-RD-01", [&c, psn] {
        return what(c) + " PSN " + hex(psn) + " while the response ending the previous READ " +
               "is still missing";
      });
    }
    if (!c.dir.peer || !c.dir.peer->req.started) return;
    const uint32_t pmtu = c.dir.pmtu();
    // MR-RD-02: the answer starts at the PSN of a READ sent (new, retransmitted or
    // reissued), not anywhere in a READ's range.
    const PendingRequest* rq = find_read_at(c.dir.peer->req, psn);
    if (!rq) {
      report_missing_read(c, sink, find_read(c.dir.peer->req, psn, pmtu));
      return;
    }
    if (!pmtu) return;
    const uint32_t count = read_psns(rq->dlen, pmtu);
    const uint32_t remaining = count - static_cast<uint32_t>(wire::psn_diff(psn, rq->psn));
    if (c.is(wire::kOnly) && remaining > 1) {
      report_lazily(sink, c, "MR-RD-01", [rq, pmtu, remaining] {
        return "READ_RESPONSE_ONLY for a " + std::to_string(rq->dlen) + "-byte READ, which " +
               "at PMTU " + std::to_string(pmtu) + " needs " + std::to_string(remaining) +
               " packets";
      });
    } else if (c.is(wire::kFirst) && remaining == 1) {
      report_lazily(sink, c, "MR-RD-01", [rq, pmtu] {
        return "READ_RESPONSE_FIRST for a " + std::to_string(rq->dlen) +
               "-byte READ that fits one packet at PMTU " + std::to_string(pmtu);
      });
    }
  }
};

}  // namespace

std::unique_ptr<Checker> make_read_response_checker() {
  return std::make_unique<ReadResponseChecker>();
}

}  // namespace mr::analyze
