// File: ordered_completion.h
//
// Weak ordering on an Ext QP (spec section 24): packets are placed as they arrive, while
// completions, MSNs and what completions make visible stay in message order. Three parts of
// the responder's side:
//   - placement_error(): the per-packet length rules (offset a multiple of the PMTU, FIRST at
//     offset 0, FIRST and MIDDLE exactly one PMTU, LAST and ONLY ending at the DMA length,
//     nothing beyond it), whose violation is answered with NAK 0x61;
//   - RqsnBinding: receive WQE k serves RQSN k (a receive queue), or the next SRQ WQE is bound
//     to an RQSN when its first packet arrives; an RQSN without a WQE draws an RNR NAK for
//     that packet only (MR-OO-06, MR-OO-11);
//   - MessageCompletions: message k completes when the cumulative PSN has passed its last PSN,
//     in MSN order, exactly once (MR-OO-04, 05, 08, 09, 13).
//
//   MessageCompletions done;
//   done.on_last_packet(msn, last_psn);             // when the message's last PSN is known
//   for (uint32_t msn : done.advance(window.cumulative())) complete(msn);
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mr::transport::ext {

enum class PacketPosition : uint8_t { kFirst, kMiddle, kLast, kOnly };

// Why a packet breaks section 24's length rules, or none.
std::optional<std::string> placement_error(PacketPosition position, uint64_t offset,
                                           uint64_t payload, uint64_t dma_length, uint32_t pmtu);

class RqsnBinding {
 public:
  // `shared` for an SRQ: WQEs are taken in arrival order of each RQSN's first packet.
  explicit RqsnBinding(bool shared) : shared_(shared) {}

  // A receive WQE was posted (its identifier, e.g. wr_id).
  void post(uint64_t wqe);
  // The WQE that serves `rqsn`, binding one if needed; none: answer with an RNR NAK.
  std::optional<uint64_t> bind(uint32_t rqsn);
  // The message of `rqsn` completed: its WQE is consumed.
  void consume(uint32_t rqsn);

 private:
  bool shared_;
  std::vector<uint64_t> wqes_;  // posted WQEs not yet bound, oldest first
  std::map<uint32_t, uint64_t> bound_;
  uint32_t next_rqsn_ = 1;  // receive queue: the RQSN the oldest unbound WQE serves
};

class MessageCompletions {
 public:
  // The last PSN of message `msn` became known (its LAST or ONLY packet was accepted).
  void on_last_packet(uint32_t msn, uint32_t last_psn);
  // The messages whose last PSN the cumulative PSN has now passed, in MSN order and each
  // once; a later message never completes before an earlier one.
  std::vector<uint32_t> advance(uint32_t cumulative_psn);
  // Messages completed so far: the AETH MSN (modulo 2^24).
  uint32_t msn() const { return completed_ & 0xffffff; }

 private:
  uint32_t completed_ = 0;             // messages completed, in order
  std::map<uint32_t, uint32_t> last_;  // MSN -> last PSN, for messages not yet complete
};

}  // namespace mr::transport::ext
