// File: ack_path_ledger.cpp
#include "reference/transport/ext/ack_path_ledger.h"

#include "reference/wire/psn.h"

namespace mr::transport::ext {

void AckPathLedger::on_ack_sent(uint16_t ev, uint64_t now_ns, uint32_t cumulative,
                                const SackReport& report) {
  while (!acks_.empty() &&
         (acks_.size() >= kMaxAcks || now_ns - acks_.front().sent_ns > parameters_.window_ns)) {
    acks_.pop_front();
  }
  acks_.push_back({.ev = ev,
                   .sent_ns = now_ns,
                   .cumulative = cumulative,
                   .base = report.base(),
                   .bitmap = report.bitmap});
}

bool AckPathLedger::reports(const SentAck& a, uint32_t psn) {
  if (wire::psn_diff(psn, a.cumulative) <= 0) return true;
  const int32_t i = wire::psn_diff(psn, a.base);
  return i >= 0 && i < 64 && ((a.bitmap >> i) & 1) != 0;
}

std::vector<uint16_t> AckPathLedger::on_duplicate_retransmission(uint32_t psn, uint64_t now_ns) {
  std::vector<uint16_t> blamed;
  for (SentAck& a : acks_) {
    if (a.blamed || now_ns - a.sent_ns > parameters_.window_ns) continue;
    if (now_ns - a.sent_ns < parameters_.guard_ns || !reports(a, psn)) continue;
    a.blamed = true;
    blamed.push_back(a.ev);
  }
  return blamed;
}

}  // namespace mr::transport::ext
