// An Ext sender's retransmissions, judged against what it sent and what its peer's ACKs and
// NAKs told it (section 21.2):
//   MR-SA-04  it never retransmits a SEND or WRITE packet whose PSN a cumulative PSN or a
//             SACK bitmap it received reports as received (READ and ATOMIC requests are
//             reissued by rules of their own, MR-SA-15 and MR-SA-16);
//   MR-SA-12  a retransmission carries RETX = 1 and its first transmission's opcode, MSN,
//             RQSN, offset, other headers and payload (the plaintext: a secure packet's
//             payload is not compared); a first transmission carries RETX = 0.
// The capture must hold the sender's every packet and the ACKs as it received them (taken at
// the sender, as `run` takes it). PSNs before the first one captured are not judged, and an
// ACK counts as received only up to the earliest cumulative PSN it can mean (ext_cumulative.h).
// What an ACK reports judges the packets captured more than kReactionNs (plus the capture's
// timestamp slack: the PIXIT's absolute tolerance in a run) after it: a sender's packets
// built before the ACK reached it, or in the same instant from an older ACK, are captured
// after it without breaking the rule.
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string_view>
#include <unordered_map>

#include "harness/analyze/checkers.h"
#include "harness/analyze/ext_cumulative.h"
#include "reference/wire/psn.h"

namespace mr::analyze {
namespace {

// A flow's records are bounded: a window holds at most 128 x 255 PSNs beyond the cumulative
// PSN, and records the reaction time keeps add a few more; past the bound the checker stops
// recording (and judges less) rather than grow.
constexpr size_t kMaxRecorded = 1 << 16;
// How long after an ACK a sender's packets may still be ones it built before the ACK reached
// it: a capture point one link away sees the ACK a link delay before the sender does and its
// packets a link delay after (the embedded DUT's link is 1 us each way).
constexpr uint64_t kReactionNs = 2'000;

// What a retransmission must repeat of a first transmission.
struct FirstTransmission {
  uint8_t opcode = 0;
  uint32_t msn = 0;
  uint32_t rqsn = 0;
  uint32_t offset = 0;
  std::optional<wire::Reth> reth;
  std::optional<wire::ImmDt> imm_dt;
  std::optional<wire::Ieth> ieth;
  std::optional<wire::AtomicEth> atomic_eth;
  uint32_t payload_length = 0;
  size_t payload = 0;  // a hash of the payload; 0 for a secure packet (ciphertext differs)
};

// One sender's flow: the cumulative PSN its peer reported (in force once the reaction time
// has passed), the PSNs beyond it a bitmap reported, and its first transmissions not yet
// covered by a reported cumulative PSN. PSNs are kept unwrapped (64-bit, from an anchor that
// follows the cumulative PSN), so that what the cumulative PSN passes leaves the front of an
// ordered map.
struct SenderRecord {
  static constexpr uint64_t kStart = uint64_t{1} << 40;
  uint32_t anchor_psn = 0;
  uint64_t anchor = kStart;
  uint64_t first = kStart;    // the first request PSN captured, unwrapped
  uint64_t highest = kStart;  // the highest sent: a first transmission is beyond it
  bool have_cumulative = false;
  uint32_t cumulative = 0;  // in force
  // Cumulative PSNs reported, by capture time, not yet in force; the newest last.
  std::deque<std::pair<uint64_t, uint32_t>> reported;
  std::map<uint64_t, uint64_t> sacked;  // PSN beyond the cumulative PSN -> first reported at
  std::map<uint64_t, FirstTransmission> sent;

  uint64_t unwrap(uint32_t psn) const {
    return anchor + static_cast<uint64_t>(static_cast<int64_t>(wire::psn_diff(psn, anchor_psn)));
  }
  // The newest cumulative PSN reported, in force or not.
  std::optional<uint32_t> newest_cumulative() const {
    if (!reported.empty()) return reported.back().second;
    if (have_cumulative) return cumulative;
    return std::nullopt;
  }
  // Puts in force what was reported more than `reaction` before `now`: the cumulative PSN
  // moves, and the SACKed PSNs it passes leave the records.
  void catch_up(uint64_t now, uint64_t reaction) {
    while (!reported.empty() && reported.front().first + reaction < now) {
      const uint32_t c = reported.front().second;
      reported.pop_front();
      const uint64_t passed = unwrap(c);
      have_cumulative = true;
      cumulative = c;
      anchor = passed;
      anchor_psn = c;
      sacked.erase(sacked.begin(), sacked.upper_bound(passed));
    }
  }
  // Whether a report in force at `now` says `psn` was received.
  bool received(uint32_t psn, uint64_t now, uint64_t reaction) const {
    if (have_cumulative && wire::psn_diff(psn, cumulative) <= 0) return true;
    auto it = sacked.find(unwrap(psn));
    return it != sacked.end() && it->second + reaction < now;
  }
};

FirstTransmission fingerprint(const wire::RocePacket& p) {
  FirstTransmission f;
  f.opcode = p.bth.opcode.value();
  f.msn = p.mxh->msn.value();
  f.rqsn = p.mxh->rqsn.value();
  f.offset = p.mxh->offset.value();
  f.reth = p.reth;
  f.imm_dt = p.imm_dt;
  f.ieth = p.ieth;
  f.atomic_eth = p.atomic_eth;
  f.payload_length = static_cast<uint32_t>(p.payload.size());
  if (!p.sech) {
    f.payload = std::hash<std::string_view>{}(
        std::string_view(reinterpret_cast<const char*>(p.payload.data()), p.payload.size()));
  }
  return f;
}

// The first field of `now` that differs from `first`, "" when none does.
std::string differing_field(const FirstTransmission& first, const FirstTransmission& now) {
  if (now.opcode != first.opcode)
    return "opcode " + hex(now.opcode, 2) + " (first transmission " + hex(first.opcode, 2) + ")";
  if (now.msn != first.msn)
    return "MXH MSN " + hex(now.msn) + " (first transmission " + hex(first.msn) + ")";
  if (now.rqsn != first.rqsn)
    return "MXH RQSN " + hex(now.rqsn) + " (first transmission " + hex(first.rqsn) + ")";
  if (now.offset != first.offset)
    return "MXH offset " + hex(now.offset, 8) + " (first transmission " + hex(first.offset, 8) +
           ")";
  if (now.reth != first.reth) return "its RETH";
  if (now.imm_dt != first.imm_dt || now.ieth != first.ieth) return "its ImmDt or IETH";
  if (now.atomic_eth != first.atomic_eth) return "its AtomicETH";
  if (now.payload_length != first.payload_length)
    return "its payload to " + std::to_string(now.payload_length) + " bytes (first transmission " +
           std::to_string(first.payload_length) + ")";
  if (now.payload != first.payload) return "its payload bytes";
  return "";
}

class ExtRetransmissionChecker final : public Checker {
 public:
  void check(const PacketContext& c, ViolationSink& sink) override {
    if (c.p.sacketh && c.p.aeth && c.dir.peer != nullptr) return acknowledge(c);
    if (!c.p.mxh || !c.is_request() || c.is(wire::kProbe | wire::kResync | wire::kCredit)) return;
    const uint32_t psn = c.psn();
    auto [found, is_new] = senders_.try_emplace(&c.dir);
    SenderRecord& s = found->second;
    if (is_new) s.anchor_psn = psn;
    const uint64_t reaction = kReactionNs + c.timestamp_slack_ns;
    s.catch_up(c.time_ns, reaction);
    const uint64_t at = s.unwrap(psn);
    if (at < s.first) return;  // sent before the capture began
    const bool retx = c.p.mxh->retx.value() != 0;
    if (s.received(psn, c.time_ns, reaction)) {
      // READ and ATOMIC requests are reissued by rules of their own (MR-SA-15, MR-SA-16).
      if (c.is(wire::kRead | wire::kAtomic)) return;
      const bool behind = s.have_cumulative && wire::psn_diff(psn, s.cumulative) <= 0;
      const uint32_t cumulative = s.cumulative;
      report_lazily(sink, c, "MR-SA-04", [psn, retx, behind, cumulative] {
        return std::string(retx ? "retransmits" : "sends again") + " PSN " + hex(psn) + ", which " +
               (behind ? "the cumulative PSN " + hex(cumulative) : std::string("a SACK bitmap")) +
               " reported as received";
      });
      return;
    }
    if (is_new || at > s.highest) {
      s.highest = at;
      // A READ reissued from a PSN inside it is the first sight of that PSN, with RETX = 1;
      // the first packet captured may be a retransmission of one sent before the capture.
      if (retx && !is_new && !c.is(wire::kRead)) {
        report_lazily(sink, c, "MR-SA-12", [psn] {
          return "the first transmission of PSN " + hex(psn) + " carries MXH RETX = 1";
        });
      }
      if (s.sent.size() < kMaxRecorded) s.sent.emplace(at, fingerprint(c.p));
      return;
    }
    auto it = s.sent.find(at);
    if (it == s.sent.end()) return;  // not recorded: passed by a report, or past the bound
    if (!retx) {
      report_lazily(sink, c, "MR-SA-12",
                    [psn] { return "PSN " + hex(psn) + " sent again with MXH RETX = 0"; });
    }
    if (std::string field = differing_field(it->second, fingerprint(c.p)); !field.empty()) {
      report_lazily(sink, c, "MR-SA-12", [psn, field] {
        return "the retransmission of PSN " + hex(psn) + " changes " + field;
      });
    }
  }

 private:
  // An Ext ACK or NAK to the sender of c.dir.peer: what it reports received, from its time on.
  // The sender drops one with a bad ICRC, and ignores a bitmap whose offset is not a multiple
  // of 8 and the bits of PSNs it has not sent (section 21.2): so does the checker.
  void acknowledge(const PacketContext& c) {
    if (!c.decoded.icrc_ok()) return;
    auto found = senders_.find(c.dir.peer);
    if (found == senders_.end()) return;
    SenderRecord& s = found->second;
    const wire::Sacketh& sack = *c.p.sacketh;
    const uint32_t cumulative = ext_cumulative_psn(c).earliest;
    const std::optional<uint32_t> newest = s.newest_cumulative();
    if (!newest || wire::psn_diff(cumulative, *newest) > 0) {
      // Bounded: a report beyond the bound is not taken (judging less, never more).
      if (s.reported.size() < kMaxRecorded) s.reported.emplace_back(c.time_ns, cumulative);
      // What a reported cumulative PSN passes is either judged by MR-SA-04 once in force or
      // sent within the reaction time: its first transmission need not be kept.
      s.sent.erase(s.sent.begin(), s.sent.upper_bound(s.unwrap(cumulative)));
    }
    if (sack.signed_offset() % 8 != 0) return;
    const uint32_t base = sack.bitmap_base().value();
    for (uint32_t i = 0; i < 64 && s.sacked.size() < kMaxRecorded; ++i) {
      if (((sack.bitmap.value() >> i) & 1) == 0) continue;
      const uint32_t psn = wire::psn_add(base, i);
      const uint64_t at = s.unwrap(psn);
      if (wire::psn_diff(psn, cumulative) > 0 && at <= s.highest) s.sacked.emplace(at, c.time_ns);
    }
  }

  std::unordered_map<const Direction*, SenderRecord> senders_;
};

}  // namespace

std::unique_ptr<Checker> make_ext_retransmission_checker() {
  return std::make_unique<ExtRetransmissionChecker>();
}

}  // namespace mr::analyze
