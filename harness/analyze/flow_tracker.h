// File: flow_tracker.h
//
// Advances a flow's state by one packet once every checker has seen it: the requester's
// expected PSN, retransmission state, inferred PMTU, pending READs and atomics, and the
// responder's ACK PSN, MSN, open NAK and open READ response. Also the queries checkers ask
// of that state.
#pragma once

#include <cstdint>
#include <optional>

#include "harness/analyze/checker.h"
#include "harness/analyze/flow.h"

namespace mr::analyze {

void track(const PacketContext& c);

// PSNs a READ of dlen bytes consumes at this PMTU: max(1, ceil(dlen / pmtu)) (MR-PS-02).
constexpr uint32_t read_psns(uint32_t dlen, uint32_t pmtu) {
  // Not (dlen + pmtu - 1) / pmtu: that wraps for a DMA length near 2^32 (a hostile capture).
  return dlen == 0 ? 1 : dlen / pmtu + (dlen % pmtu != 0 ? 1 : 0);
}

// The PSN the requester's next new request must carry, once the capture shows enough to
// know it (a READ's PSN count needs the PMTU).
std::optional<uint32_t> expected_next_psn(const Direction& d);

// The PSN just after the newest request PSN the requester can have sent.
uint32_t sent_limit(const RequesterState& r);

// The pending READ whose response PSNs [psn, psn + count) hold `psn`, or nullptr.
const PendingRequest* find_read(const RequesterState& r, uint32_t psn, uint32_t pmtu);
const PendingRequest* find_atomic(const RequesterState& r, uint32_t psn);

// When c is a READ that asks again for the tail of a READ the requester sent earlier (PSN
// inside its range, VA advanced and length reduced by whole PMTUs: MR-RT-05), that READ;
// `pmtu` receives the PMTU the reissue implies. Otherwise nullptr.
const PendingRequest* reissued_read(const PacketContext& c, uint32_t* pmtu = nullptr);
// The READ reissued at exactly `psn`, or nullptr.
const PendingRequest* find_read_reissue(const RequesterState& r, uint32_t psn);

// Syndrome type (IBTA 9.3.5.1): bits 6:5.
enum class AckType { kAck = 0, kRnrNak = 1, kReserved = 2, kNak = 3 };
constexpr AckType ack_type(uint8_t syndrome) { return static_cast<AckType>((syndrome >> 5) & 3); }
inline constexpr uint8_t kNakPsnSequence = 0x60;

}  // namespace mr::analyze
