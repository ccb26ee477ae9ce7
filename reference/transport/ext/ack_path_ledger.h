// File: ack_path_ledger.h
//
// The receiver's half of ACK-path attribution (spec section 25.1): it remembers, for each ACK
// it sent, the EV it left on, when, and the PSNs it reported received. When a packet with
// RETX = 1 arrives for a PSN already received, every ACK that reported that PSN and left at
// least T_PF_ACK_PATH_GUARD before was lost or late: one ACK-path loss is counted for each EV
// that carried such an ACK (EvTable::on_ack_path_loss takes it from there).
//
// The ledger keeps the ACKs of the last T_PF_ACK_LOSS_WINDOW, at most kMaxAcks of them (the
// oldest are forgotten first: a loss older than the window counts for nothing anyway).
//
//   ledger.on_ack_sent(ev, now, cumulative, report);
//   for (uint16_t ev : ledger.on_duplicate_retransmission(psn, now)) table.on_ack_path_loss(...)
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

#include "reference/transport/ext/sack_bitmap.h"

namespace mr::transport::ext {

struct AckPathParameters {
  uint64_t guard_ns = 100'000;      // T_PF_ACK_PATH_GUARD
  uint64_t window_ns = 10'000'000;  // T_PF_ACK_LOSS_WINDOW
};

class AckPathLedger {
 public:
  static constexpr size_t kMaxAcks = 4096;

  explicit AckPathLedger(AckPathParameters parameters) : parameters_(parameters) {}

  // An ACK or NAK left on `ev` at `now_ns`, reporting every PSN up to `cumulative` and the
  // bitmap of `report`.
  void on_ack_sent(uint16_t ev, uint64_t now_ns, uint32_t cumulative, const SackReport& report);
  // A RETX = 1 packet arrived for `psn`, already received: the EVs to blame, one per ACK that
  // reported it and left at least the guard before (an EV twice if two such ACKs used it).
  std::vector<uint16_t> on_duplicate_retransmission(uint32_t psn, uint64_t now_ns);

 private:
  struct SentAck {
    uint16_t ev;
    uint64_t sent_ns;
    uint32_t cumulative;
    uint32_t base;
    uint64_t bitmap;
    bool blamed = false;  // counted once: a second duplicate of the same loss adds nothing
  };
  static bool reports(const SentAck& a, uint32_t psn);

  AckPathParameters parameters_;
  std::deque<SentAck> acks_;  // oldest first
};

}  // namespace mr::transport::ext
