// File: receiver_credit.h
//
// Receiver credits (spec section 26.7, CREDIT): the receiver of the data decides how fast each
// sender may send. Credit counts units of 256 bytes, compared modulo 2^16; a request packet
// costs max(1, ceil(payload / 256)) units, every transmission.
//   - CreditSender: S (spent, less packets declared lost) and L (limit, from the unsolicited
//     allowance), a grant taken only when it raises L (a stale or reordered one never lowers
//     it), a packet sent only when S + cost does not pass L, and the MXH Pending field.
//   - CreditReceiver: per QP, G (granted), C (received cost; a trimmed packet costs a PMTU),
//     D (the newest Pending), O = G - C; a raise G = max(G, C) + q only for D > 0 and while O
//     stays within B_CR_MAX_OUTSTANDING; outstanding credit taken as lost after T_CR_TIMEOUT.
//   - CreditScheduler: raises paced to R_CR_LINK_SHARE of R_CR_LINE_RATE, q = B_CR_GRANT_BURST
//     per raise, round robin over the QPs with demand and room (the spec's informative one).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>

namespace mr::transport::ext {

inline constexpr uint32_t kCreditUnit = 256;

// max(1, ceil(payload / 256)) units.
uint16_t credit_cost(uint32_t payload);
// The same in bytes (units x 256): what a packet adds to the sender's pending demand, so that
// a payload-less request (a READ) is demand too; of a whole message, the sum over its
// packets when the PMTU is a multiple of 256 (section 26.7).
inline uint64_t credit_bytes(uint64_t payload) {
  return std::max<uint64_t>(1, (payload + 255) / 256) * 256;
}
// MXH Pending: min(255, ceil(bytes / 4096)).
uint8_t pending_field(uint64_t pending_bytes);

class CreditSender {
 public:
  // B_CR_UNSOLICITED. `modulo_grant_order` false takes every grant but L itself (only the
  // ext-stale-grant-taken mutant).
  explicit CreditSender(uint32_t unsolicited_bytes = 32'768, bool modulo_grant_order = true);

  bool may_send(uint32_t payload) const;
  void on_sent(uint32_t payload);
  // A packet the sender declared lost (a timeout or SACK evidence, not a trim, which the
  // receiver counts): the receiver never counted its cost, so neither does the sender, and
  // the credit it was granted for it is there for the retransmission (section 26.7).
  void refund(uint32_t payload);
  // A grant (CRV = 1 in an Ext ACK or NAK, or a CREDIT packet): returns whether it was taken.
  bool on_grant(uint16_t limit);

  uint16_t spent() const { return spent_; }
  uint16_t limit() const { return limit_; }

 private:
  uint16_t spent_ = 0;  // S
  uint16_t limit_;      // L
  bool modulo_grant_order_;
};

struct CreditParameters {
  uint32_t unsolicited = 32'768;       // B_CR_UNSOLICITED, bytes
  uint32_t max_outstanding = 131'072;  // B_CR_MAX_OUTSTANDING, bytes
  uint32_t grant_burst = 16'384;       // B_CR_GRANT_BURST, bytes
  uint64_t link_share_num = 95;        // R_CR_LINK_SHARE = 0.95
  uint64_t link_share_den = 100;
  uint64_t line_rate_mbps = 100'000;  // R_CR_LINE_RATE
  uint64_t timeout_ns = 100'000;      // T_CR_TIMEOUT
  uint64_t grant_delay_ns = 5'000;    // T_CR_GRANT_DELAY
  // Section 26.7's rules that only mutants switch off: a grant is taken only when newer in
  // modulo-2^16 order (MR-CR-05); a QP is raised only while its newest Pending is not 0
  // (MR-CR-08).
  bool modulo_grant_order = true;
  bool raises_need_demand = true;
  bool round_robin = true;  // false: every raise searches from QP 0 (MR-CR-11's mutant)
};

class CreditReceiver {
 public:
  // A request packet arrived (accepted, duplicate or trimmed).
  void on_request(uint32_t payload, bool trimmed, uint32_t pmtu, uint8_t pending, uint64_t now_ns);
  // O = G - C, 0 when C is at or after G.
  uint16_t outstanding() const;
  bool has_demand() const { return demand_ > 0; }
  // Whether a raise of q units keeps O within `max_units`.
  bool has_room(uint16_t q, uint16_t max_units) const;
  // G = max(G, C) + q (modulo-2^16 order). Returns the new G, which every ACK carries.
  uint16_t raise(uint16_t q);
  // D > 0, O > 0 and no request for T_CR_TIMEOUT: the outstanding credit is lost (C = G).
  bool expire(uint64_t now_ns, uint64_t timeout_ns);
  // When expire() would next take credit as lost; none while it cannot (no demand, or
  // nothing outstanding).
  std::optional<uint64_t> expiry_ns(uint64_t timeout_ns) const {
    if (demand_ == 0 || outstanding() == 0) return std::nullopt;
    return last_request_ns_ + timeout_ns;
  }
  uint16_t granted() const { return granted_; }

 private:
  uint16_t granted_ = 0;   // G
  uint16_t received_ = 0;  // C
  uint8_t demand_ = 0;     // D
  uint64_t last_request_ns_ = 0;
};

// Paces the raises of a receiver's credit QPs together. It holds no QPs: each tick is given
// how many there are and how to reach the i-th (a device's QPs come and go).
class CreditScheduler {
 public:
  explicit CreditScheduler(CreditParameters parameters) : p_(parameters) {}

  // The raise due at `now_ns`, if any: the index (below `count`) of the QP it went to, whose
  // G rose by one burst. One raise per B_CR_GRANT_BURST / (share x line rate), so that over
  // any interval d the raises total at most one burst plus the share of d (MR-CR-10); round
  // robin from the QP after the previous raise's. `receiver_at(i)` gives QP i's
  // CreditReceiver, or null for one that is gone.
  template <class ReceiverAt>
  std::optional<size_t> tick(size_t count, ReceiverAt&& receiver_at, uint64_t now_ns) {
    if (count == 0 || (next_raise_ns_ && now_ns < *next_raise_ns_)) return std::nullopt;
    for (size_t k = 0; k < count; ++k) {
      const size_t i = (next_ + k) % count;
      CreditReceiver* r = receiver_at(i);
      if (r == nullptr || !wants_raise(*r)) continue;
      r->raise(burst_units());
      next_raise_ns_ = now_ns + interval_ns();
      next_ = p_.round_robin ? (i + 1) % count : 0;
      return i;
    }
    return std::nullopt;
  }
  // Whether a QP may be raised now: demand (D > 0) and room under B_CR_MAX_OUTSTANDING.
  bool wants_raise(const CreditReceiver& r) const {
    return (r.has_demand() || !p_.raises_need_demand) && r.has_room(burst_units(), max_units());
  }
  // When the next raise may go (none before the first).
  std::optional<uint64_t> next_raise_ns() const { return next_raise_ns_; }
  // The time between raises, in ns (rounded up).
  uint64_t interval_ns() const;
  uint16_t burst_units() const { return static_cast<uint16_t>(p_.grant_burst / kCreditUnit); }
  uint16_t max_units() const { return static_cast<uint16_t>(p_.max_outstanding / kCreditUnit); }
  const CreditParameters& parameters() const { return p_; }

 private:
  CreditParameters p_;
  std::optional<uint64_t> next_raise_ns_;
  size_t next_ = 0;
};

}  // namespace mr::transport::ext
