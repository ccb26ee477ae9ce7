// File: receiver_credit.cpp
#include "reference/transport/ext/receiver_credit.h"

#include <algorithm>

namespace mr::transport::ext {
namespace {

constexpr uint16_t kHalf = 1U << 15;

// (a - b) mod 2^16.
constexpr uint16_t diff16(uint16_t a, uint16_t b) { return static_cast<uint16_t>(a - b); }

}  // namespace

uint16_t credit_cost(uint32_t payload) {
  return static_cast<uint16_t>(std::max<uint32_t>(1, (payload + kCreditUnit - 1) / kCreditUnit));
}

uint8_t pending_field(uint64_t pending_bytes) {
  return static_cast<uint8_t>(std::min<uint64_t>(255, (pending_bytes + 4095) / 4096));
}

CreditSender::CreditSender(uint32_t unsolicited_bytes, bool modulo_grant_order)
    : limit_(static_cast<uint16_t>((unsolicited_bytes + kCreditUnit - 1) / kCreditUnit)),
      modulo_grant_order_(modulo_grant_order) {}

bool CreditSender::may_send(uint32_t payload) const {
  return diff16(diff16(limit_, spent_), credit_cost(payload)) < kHalf;
}

void CreditSender::on_sent(uint32_t payload) {
  spent_ = static_cast<uint16_t>(spent_ + credit_cost(payload));
}

void CreditSender::refund(uint32_t payload) {
  spent_ = static_cast<uint16_t>(spent_ - credit_cost(payload));
}

bool CreditSender::on_grant(uint16_t limit) {
  const uint16_t step = diff16(limit, limit_);
  if (step == 0 || (step >= kHalf && modulo_grant_order_)) return false;
  limit_ = limit;
  return true;
}

void CreditReceiver::on_request(uint32_t payload, bool trimmed, uint32_t pmtu, uint8_t pending,
                                uint64_t now_ns) {
  received_ = static_cast<uint16_t>(received_ + credit_cost(trimmed ? pmtu : payload));
  demand_ = pending;
  last_request_ns_ = now_ns;
}

uint16_t CreditReceiver::outstanding() const {
  const uint16_t o = diff16(granted_, received_);
  return o < kHalf ? o : 0;
}

bool CreditReceiver::has_room(uint16_t q, uint16_t max_units) const {
  return uint32_t{outstanding()} + q <= max_units;
}

uint16_t CreditReceiver::raise(uint16_t q) {
  // max(G, C) in modulo-2^16 order: C when it is after G.
  const uint16_t from = diff16(received_, granted_) < kHalf ? received_ : granted_;
  granted_ = static_cast<uint16_t>(from + q);
  return granted_;
}

bool CreditReceiver::expire(uint64_t now_ns, uint64_t timeout_ns) {
  if (demand_ == 0 || outstanding() == 0 || now_ns - last_request_ns_ < timeout_ns) return false;
  received_ = granted_;
  last_request_ns_ = now_ns;  // the next loss is counted from here
  return true;
}

uint64_t CreditScheduler::interval_ns() const {
  // burst bytes / (share x line rate): bytes x 8 bits x 1e3 ns/us / (share x Mbit/s).
  const uint64_t num = uint64_t{p_.grant_burst} * 8 * 1'000 * p_.link_share_den;
  const uint64_t den = p_.line_rate_mbps * p_.link_share_num;
  return den == 0 ? UINT64_MAX : (num + den - 1) / den;
}

}  // namespace mr::transport::ext
