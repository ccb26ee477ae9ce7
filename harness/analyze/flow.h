// File: flow.h
//
// Per-connection state, the only memory the analyzer keeps (bounded per flow, never per
// packet). A Direction is everything one endpoint sends to one remote QP: the key is
// (source IP, destination IP, destination QPN). An RC connection is two Directions that
// point at each other (`peer`): A->B to B's QPN and B->A to A's QPN. Requests travel to
// the responder's QPN, ACKs and READ responses come back to the requester's QPN, so each
// Direction carries its sender's requester state (requests it sends) and its responder
// state (responses it sends for the peer's requests).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace mr::analyze {

struct IpAddress {
  std::array<uint8_t, 16> bytes{};
  bool v6 = false;
  std::string to_string() const;
  friend auto operator<=>(const IpAddress&, const IpAddress&) = default;
};

struct DirectionKey {
  IpAddress src;
  IpAddress dst;
  uint32_t dqpn = 0;
  friend auto operator<=>(const DirectionKey&, const DirectionKey&) = default;
  friend bool operator==(const DirectionKey&, const DirectionKey&) = default;
};

// A key's address bytes as four words: src then dst, 16 bytes each, unused bytes zero.
using AddressWords = std::array<uint64_t, 4>;

// The key's hash from its address words, for a caller that holds them in registers (the
// decode stage): hash_of(k) == hash_of_words(k's words, k.dqpn, k.src.v6). Each word is
// mixed by a multiply and a shift: a few cycles, where a byte-wise hash cost ~2% of analysis.
inline uint64_t hash_of_words(const AddressWords& w, uint32_t dqpn, bool v6) {
  // Written out, not a loop: GCC kept the loop, and with it the words on the stack.
  constexpr uint64_t kMix = 0x9e3779b97f4a7c15ULL;
  static_assert(std::tuple_size_v<AddressWords> == 4);
  uint64_t h = (static_cast<uint64_t>(dqpn) << 1) | (v6 ? 1 : 0);
  h = (h ^ w[0]) * kMix;
  h = (h ^ w[1]) * kMix;
  h = (h ^ w[2]) * kMix;
  h = (h ^ w[3]) * kMix;
  return h ^ (h >> 29);
}
uint64_t hash_of(const DirectionKey& k);

// A request the responder still owes an answer to (READ responses, ATOMIC_ACKNOWLEDGE).
struct PendingRequest {
  uint32_t psn = 0;
  uint32_t dlen = 0;  // READ DMA length; 0 for atomics
  bool valid = false;
  uint64_t va = 0;       // READ: RETH VA (a reissue names a tail of the same range)
  bool reissue = false;  // READ reissued from a PSN inside an earlier READ (MR-RT-05)
};

inline constexpr size_t kPendingReads = 16;  // bounded ring per direction

struct RequesterState {
  bool started = false;
  uint32_t first_psn = 0;
  uint32_t next_psn = 0;        // PSN the next new request must carry
  bool next_psn_known = false;  // false after a READ whose PSN count needs the PMTU
  bool last_new_read = false;   // the newest new request was a READ:
  uint32_t read_psn = 0;        // that READ
  uint32_t read_dlen = 0;
  uint32_t retx_next = 0;  // during a retransmission, the PSN expected next
  bool in_retx = false;
  uint32_t pmtu = 0;             // the inferred PMTU: what FIRST/MIDDLE carry (infer_pmtu)
  uint32_t pmtu_candidate = 0;   // another PMTU size one FIRST/MIDDLE carried just now
  bool write_open = false;       // the newest message is a WRITE of several packets:
  uint32_t write_first_psn = 0;  // its FIRST's PSN,
  uint32_t write_dlen = 0;       // its RETH's DMA length,
  uint32_t write_segment = 0;    // and its FIRST's payload (each MIDDLE carries as much)
  size_t reads_at = 0;
  size_t reissues = 0;  // entries of `reads` that are reissues (MR-RT-05)
  size_t atomics_at = 0;
  // The newest Ext request PSN this direction has carried (MR-SA-18: what the receiver got).
  bool ext_top_seen = false;
  uint32_t ext_top = 0;
  // Last: most packets do not read the rings, so the fields above share fewer cache lines.
  std::array<PendingRequest, kPendingReads> reads{};
  std::array<PendingRequest, kPendingReads> atomics{};
};

struct ResponderState {
  bool msn_seen = false;
  uint32_t msn = 0;  // the newest MSN that did not go back (MR-AK-03)
  bool acked = false;
  uint32_t last_ack_psn = 0;  // newest ACK PSN sent
  bool nak_open = false;      // a PSN sequence NAK was sent, no request with its PSN arrived yet
  uint32_t nak_psn = 0;
  bool duplicate_pending = false;  // a duplicate SEND/WRITE with AckReq awaits its ACK
  bool read_open = false;          // a multi-packet READ response is in progress
  uint32_t read_next_psn = 0;
  uint32_t read_last_psn = 0;
  bool read_last_known = false;
  // The last response ended its answer (ONLY, or LAST) before the READ's last PSN (MR-RD-01,
  // reported there): a MIDDLE or LAST at read_next_psn is the rest of that answer, judged
  // against read_last_psn, not a response without a FIRST.
  bool read_cut = false;
  // After a response whose PSN broke the sequence: the PSN the next one carries, and the
  // READ's last PSN, if that response alone was misnumbered (read_next_psn and
  // read_last_psn follow it instead, as if the responder had shifted the rest).
  bool read_realign = false;
  uint32_t read_realign_psn = 0;
  uint32_t read_realign_last_psn = 0;
  uint32_t pmtu = 0;  // what READ_RESPONSE_FIRST/MIDDLE carry (infer_pmtu)
  uint32_t pmtu_candidate = 0;
  bool cnp_seen = false;
  uint64_t last_cnp_ns = 0;
  // An Ext receiver's window right edge, C + 128 x MPR, as its latest ACK or NAK
  // advertised it (MR-SA-09).
  bool window_edge_seen = false;
  uint32_t window_edge = 0;
};

// Member order is for the cache: every packet reads the key, its side's state and the
// counters, which come first and together (~5 lines); the READ and atomic rings, which few
// packets read, come last. (In the first order every packet touched 6 lines of 21.)
struct Direction {
  DirectionKey key;
  Direction* peer = nullptr;
  bool sport_known = false;
  uint16_t sport = 0;
  ResponderState resp;
  // Summary counters.
  uint64_t packets = 0;
  uint64_t requests = 0;
  uint64_t responses = 0;
  uint64_t messages = 0;
  uint64_t retransmissions = 0;
  uint64_t naks = 0;
  uint64_t cnps = 0;
  std::map<std::string_view, uint64_t> violations;  // by clause (a handful of keys)
  RequesterState req;                               // its rings last

  // The PMTU of the connection as far as the capture shows it, or 0.
  uint32_t pmtu() const {
    const uint32_t own = req.pmtu > resp.pmtu ? req.pmtu : resp.pmtu;
    if (!peer) return own;
    const uint32_t other = peer->req.pmtu > peer->resp.pmtu ? peer->req.pmtu : peer->resp.pmtu;
    return own > other ? own : other;
  }
  // "198.18.0.2->198.18.0.1 qp 0x000123", naming the requester->responder flow this
  // direction's requests (as_request) or responses (!as_request) belong to.
  std::string flow_label(bool as_request) const;
};

// Direction lookup and pairing. Directions live as long as the table (map nodes are
// stable), so peers may point at each other. The ordered map gives the summaries their
// order; the packet path finds a direction through a flat open-addressing index (one
// cache line per probe, no division), since a capture's flows interleave packet by packet.
class FlowTable {
 public:
  // `hash` is hash_of(key).
  Direction& find(const DirectionKey& key, uint64_t hash, uint32_t psn, bool is_response);
  // Cache hints for a key's hash: its first index slot; the direction that slot holds.
  void prefetch_slot(uint64_t hash) const;
  void prefetch_direction(uint64_t hash) const;
  const std::map<DirectionKey, Direction>& directions() const { return dirs_; }

 private:
  void pair(Direction& d, uint32_t psn, bool is_response);
  struct Slot {
    uint64_t hash = 0;
    Direction* dir = nullptr;
  };
  Direction* insert(const DirectionKey& key, uint64_t hash);

  std::map<DirectionKey, Direction> dirs_;
  std::vector<Slot> index_ = std::vector<Slot>(1024);  // a power of two, at most half full
};

}  // namespace mr::analyze
