// File: receiver_credit.h
//
// Receiver credits (spec section 26.7, CREDIT): the receiver of the data decides how fast each
// sender may send. Credit counts units of 256 bytes, compared modulo 2^16; a request packet
// costs max(1, ceil(payload / 256)) units, every transmission.
//   - CreditSender: S (spent) and L (limit, from the unsolicited allowance), a grant taken only
//     when it raises L (a stale or reordered one never lowers it), a packet sent only when
//     S + cost does not pass L, and the MXH Pending field.
//   - CreditReceiver: per QP, G (granted), C (received cost; a trimmed packet costs a PMTU),
//     D (the newest Pending), O = G - C; a raise G = max(G, C) + q only for D > 0 and while O
//     stays within B_CR_MAX_OUTSTANDING; outstanding credit taken as lost after T_CR_TIMEOUT.
//   - CreditScheduler: raises paced to R_CR_LINK_SHARE of R_CR_LINE_RATE, q = B_CR_GRANT_BURST
//     per raise, round robin over the QPs with demand and room (the spec's informative one).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace mr::transport::ext {

inline constexpr uint32_t kCreditUnit = 256;

// max(1, ceil(payload / 256)) units.
uint16_t credit_cost(uint32_t payload);
// MXH Pending: min(255, ceil(bytes / 4096)).
uint8_t pending_field(uint64_t pending_bytes);

class CreditSender {
 public:
  explicit CreditSender(uint32_t unsolicited_bytes = 32'768);  // B_CR_UNSOLICITED

  bool may_send(uint32_t payload) const;
  void on_sent(uint32_t payload);
  // A grant (CRV = 1 in an Ext ACK or NAK, or a CREDIT packet): returns whether it was taken.
  bool on_grant(uint16_t limit);

  uint16_t spent() const { return spent_; }
  uint16_t limit() const { return limit_; }

 private:
  uint16_t spent_ = 0;  // S
  uint16_t limit_;      // L
};

struct CreditParameters {
  uint32_t max_outstanding = 131'072;  // B_CR_MAX_OUTSTANDING, bytes
  uint32_t grant_burst = 16'384;       // B_CR_GRANT_BURST, bytes
  uint64_t link_share_num = 95;        // R_CR_LINK_SHARE = 0.95
  uint64_t link_share_den = 100;
  uint64_t line_rate_mbps = 100'000;  // R_CR_LINE_RATE
  uint64_t timeout_ns = 100'000;      // T_CR_TIMEOUT
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
  uint16_t granted() const { return granted_; }

 private:
  uint16_t granted_ = 0;   // G
  uint16_t received_ = 0;  // C
  uint8_t demand_ = 0;     // D
  uint64_t last_request_ns_ = 0;
};

// Paces the raises of a receiver's credit QPs together.
class CreditScheduler {
 public:
  explicit CreditScheduler(CreditParameters parameters) : p_(parameters) {}

  // The raise due at `now_ns`, if any: the index into `qps` it went to (its G raised by one
  // burst). One raise per B_CR_GRANT_BURST / (share x line rate); round robin from the QP after
  // the previous raise's.
  std::optional<size_t> tick(std::vector<CreditReceiver>& qps, uint64_t now_ns);
  // The time between raises, in ns (rounded up).
  uint64_t interval_ns() const;

 private:
  CreditParameters p_;
  std::optional<uint64_t> last_raise_ns_;
  size_t next_ = 0;
};

}  // namespace mr::transport::ext
