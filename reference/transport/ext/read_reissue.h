// File: read_reissue.h
//
// An Ext requester's view of one outstanding READ (spec section 21.3): which response PSNs
// arrived (in any order), when one counts as missing (N_OOO_THRESHOLD later responses of the
// same READ arrived, or the RTO passed since the request was last issued), and the request
// that reissues the rest from the first missing PSN m: PSN m, RETX = 1, RETH VA advanced and
// DMA length reduced by (m - first PSN) x PMTU, the same MXH MSN, MXH offset (m - first PSN) x
// PMTU (MR-SA-15). A cumulative ACK passing the READ is not a reason to reissue (MR-SA-16):
// nothing here looks at ACKs.
//
//   OutstandingRead read({.first_psn = p, .va = va, .dma_length = len, .msn = 9}, 4096, 8, now);
//   read.on_response(psn);
//   if (auto m = read.first_missing(now, rto)) send(read.reissue(*m, now));
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

namespace mr::transport::ext {

struct ReadRequestFields {
  uint32_t first_psn = 0;
  uint64_t va = 0;
  uint32_t dma_length = 0;
  uint32_t msn = 0;
  uint32_t mxh_offset = 0;  // 0 for the first issue
  bool retx = false;
};

class OutstandingRead {
 public:
  OutstandingRead(ReadRequestFields request, uint32_t pmtu, uint32_t ooo_threshold,
                  uint64_t issued_ns);

  uint32_t responses() const { return static_cast<uint32_t>(arrived_.size()); }
  // A response PSN of this READ arrived; others (and repeats) are ignored. Returns whether it
  // was new: its payload is then placed at MXH offset (MR-OO-07).
  bool on_response(uint32_t psn);
  bool complete() const { return arrived_count_ == arrived_.size(); }
  // A response PSN of this READ arrived trimmed (section 23): whether to reissue now
  // (MR-TR-17). Not for a PSN already in, nor, while a reissue is awaited, for another than
  // its first response: that one's trim is the reissue's loss, the others' are covered by it
  // or by the reissue after it (one reissue per trim of an earlier issue's stream was a
  // storm).
  bool on_trimmed(uint32_t psn);
  // When the RTO since the last issue passes (none once complete): a device wakes then.
  std::optional<uint64_t> deadline_ns(uint64_t rto_ns) const {
    if (complete()) return std::nullopt;
    return issued_ns_ + rto_ns;
  }
  const ReadRequestFields& request() const { return original_; }
  // Timeouts since a new response last arrived: the RTO backs off by them (section 21.2's
  // back-off, applied to the READ), so that reissues of a long READ over a lossy path do
  // not overlap and multiply.
  uint32_t timeouts() const { return timeouts_; }
  void on_timeout() { ++timeouts_; }
  uint64_t issued_ns() const { return issued_ns_; }
  // The responder asked for the READ again no sooner than until_ns (NAK 0x6B, MR-NF-08):
  // neither the RTO nor the threshold counts a response missing before then.
  void hold(uint64_t until_ns) { issued_ns_ = std::max(issued_ns_, until_ns); }
  // The first missing response PSN, if one counts as missing now (by N_OOO_THRESHOLD
  // only while no reissue waits for its first response).
  std::optional<uint32_t> first_missing(uint64_t now_ns, uint64_t rto_ns) const;
  // The request that reissues the READ from response PSN m (from first_missing).
  ReadRequestFields request_from(uint32_t m) const;
  // That request went out: the RTO runs from now, and the threshold waits for m's response.
  // Returns request_from(m).
  ReadRequestFields reissue(uint32_t m, uint64_t now_ns);

 private:
  ReadRequestFields original_;
  uint32_t pmtu_;
  uint32_t ooo_threshold_;
  uint64_t issued_ns_;
  std::vector<bool> arrived_;  // by response index (PSN - first PSN)
  uint32_t arrived_count_ = 0;
  std::optional<uint32_t> last_index_;  // the newest index that arrived
  // The index a reissue asked from, until its response arrives: responses of the earlier
  // issue still in flight must not count as N_OOO_THRESHOLD later arrivals and reissue
  // again (a storm of full-remainder reissues); the RTO still applies.
  std::optional<uint32_t> awaiting_;
  uint32_t timeouts_ = 0;
};

}  // namespace mr::transport::ext
