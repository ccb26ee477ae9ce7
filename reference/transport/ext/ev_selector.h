// File: ev_selector.h
//
// Which EV set entry each transmission of an Ext QP uses (spec sections 20.2 to 20.4).
// Oblivious: a cursor walks the set in list order to the next usable entry (GOOD, its plane's
// port up) for every packet but a PROBE; a retransmission skips the entry its previous
// transmission used when another is usable (MR-MU-08); without MULTIPATH every packet takes
// the first usable entry (MR-MU-09). Adaptive (ADAPTIVE and MULTIPATH, requests only): ECN-
// marked or trimmed feedback holds an entry off for N_MU_ADAPT_HOLD request packets, clean
// feedback puts it on a recycle list that first transmissions reuse, and every
// N_MU_EXPLORE_EVERY-th first transmission explores with the cursor.
//
//   EvSelector select(EvSelectionMode::kAdaptive, {});
//   std::optional<size_t> e = select.first_transmission(table, now);   // a request packet
//   select.on_feedback(table, echoed_index, EvFeedback::kMarked);       // from an ACK or NAK
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "reference/transport/ext/ev_table.h"

namespace mr::transport::ext {

enum class EvSelectionMode : uint8_t { kSingle, kOblivious, kAdaptive };

// The PIXIT defaults of section 30.
struct AdaptiveParameters {
  uint32_t hold = 32;           // N_MU_ADAPT_HOLD
  uint32_t recycle_depth = 32;  // N_MU_RECYCLE_DEPTH
  uint32_t explore_every = 4;   // N_MU_EXPLORE_EVERY
};

// What an Ext ACK or NAK (not a probe reply) says about the EV it echoes.
enum class EvFeedback : uint8_t {
  kMarked,  // ECE = 1, an ACK with TRM = 1, or NAK 0x65: hold the entry
  kClean,   // an ACK with ECE = 0 and TRM = 0: recycle the entry
  kNone,    // NAK 0x66 to 0x6B or RNR with ECE = 0: not the path's doing
};

class EvSelector {
 public:
  EvSelector(EvSelectionMode mode, AdaptiveParameters parameters);

  // A first transmission of a request packet (adaptive in kAdaptive mode) or of any other
  // packet (`request` false: always oblivious). None when no entry is usable.
  std::optional<size_t> first_transmission(const EvTable& table, uint64_t now_ns,
                                           bool request = true);
  // A retransmission whose previous transmission used entry `previous`.
  std::optional<size_t> retransmission(const EvTable& table, uint64_t now_ns, size_t previous);
  void on_feedback(const EvTable& table, uint64_t now_ns, size_t entry, EvFeedback feedback);

  uint32_t hold(size_t entry) const { return entry < holds_.size() ? holds_[entry] : 0; }
  // Whether oblivious first transmissions advance the cursor (MULTIPATH, MR-MU-01) or take
  // the first usable entry (MR-MU-09). The mode says which; only the mutants
  // ext-single-ev-multipath and ext-sprays-without-multipath set the other.
  void set_spraying(bool sprays) { sprays_ = sprays; }

 private:
  // The cursor's next entry after it that `accept` takes, in list order with wrap-around.
  template <typename Accept>
  std::optional<size_t> advance(const EvTable& table, Accept accept);
  std::optional<size_t> first_usable(const EvTable& table, uint64_t now_ns) const;
  std::optional<size_t> from_recycle_list(const EvTable& table, uint64_t now_ns);
  bool eligible(const EvTable& table, uint64_t now_ns, size_t i) const;
  void after_request_sent();

  EvSelectionMode mode_;
  AdaptiveParameters parameters_;
  bool sprays_;                   // oblivious first transmissions advance the cursor (set_spraying)
  std::optional<size_t> cursor_;  // the entry last taken; none before the first
  uint64_t first_transmissions_ = 0;
  std::vector<uint32_t> holds_;  // H(e), grown to the table
  std::vector<size_t> recycle_;  // R, oldest first (at most N_MU_RECYCLE_DEPTH)
};

// Section 20.2: the header fields that carry an entry.
struct EvEncoding {
  uint16_t udp_source_port = 0;
  uint32_t flow_label = 0;  // 20 bits
};
// UDP mode: source port = EV, the QP's configured flow label.
EvEncoding encode_udp(const EvEntry& e, uint32_t configured_flow_label);
// FLOW mode (IPv6): FL = (plane << 16) | EV; port = 0xC000 | ((FL & 0x3FFF) ^ (FL >> 14)).
EvEncoding encode_flow(const EvEntry& e);

}  // namespace mr::transport::ext
