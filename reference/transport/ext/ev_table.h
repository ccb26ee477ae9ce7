// File: ev_table.h
//
// One end of an Ext QP's EV set and the state of each entry (spec sections 20.1 and 25.1):
// GOOD, ASSUMED_BAD (after a timeout or repeated ACK-path losses on it, never below
// N_EV_MIN_ACTIVE GOOD entries), DENIED (by management). An ASSUMED_BAD entry is probed at
// T_PROBE_INTERVAL doubling to T_PROBE_INTERVAL_MAX and returns to GOOD on a PROBE's answer,
// or after T_EV_HOLDDOWN without PATHPROBE; an entry that failed N_PF_FLAP_MAX times within
// T_PF_FLAP_WINDOW is damped and trusted again only T_PF_FLAP_HOLD after its last failure. An
// entry whose plane's port is down is not usable, whatever its state, until T_PF_PORT_UP_HOLD
// (T_PF_FLAP_HOLD for a flapping port) after the port is up again.
//
//   auto table = EvTable::create(EvTable::default_set(qpn, planes, 16), PathFailureParameters{});
//   table->on_rto(index_of_ev, now);        // GOOD -> ASSUMED_BAD if enough others are GOOD
//   for (size_t i : table->due_probes(now)) send_probe(table->entry(i));
//   table->usable(i, now);                   // selection (section 20.3) draws from these
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "reference/error/expected.h"
#include "reference/transport/ext/ev_counters.h"

namespace mr::transport::ext {

struct EvEntry {
  uint16_t ev = 0;    // non-zero
  uint8_t plane = 0;  // 0 .. 15
};

enum class EvState : uint8_t { kGood, kAssumedBad, kDenied };
// The spec's names: GOOD, ASSUMED_BAD, DENIED.
std::string_view to_string(EvState s);

// The PIXIT defaults of section 30, in ns.
struct PathFailureParameters {
  uint32_t min_active = 4;                      // N_EV_MIN_ACTIVE
  uint64_t probe_interval_ns = 100'000;         // T_PROBE_INTERVAL
  uint64_t probe_interval_max_ns = 10'000'000;  // T_PROBE_INTERVAL_MAX
  uint64_t holddown_ns = 10'000'000;            // T_EV_HOLDDOWN
  uint64_t port_up_hold_ns = 1'000'000;         // T_PF_PORT_UP_HOLD
  uint32_t ack_losses = 3;                      // N_PF_ACK_LOSS
  uint64_t ack_loss_window_ns = 10'000'000;     // T_PF_ACK_LOSS_WINDOW
  uint32_t flap_max = 3;                        // N_PF_FLAP_MAX
  uint64_t flap_window_ns = 1'000'000'000;      // T_PF_FLAP_WINDOW
  uint64_t flap_hold_ns = 500'000'000;          // T_PF_FLAP_HOLD
  bool path_probe = true;                       // PATHPROBE negotiated
};

class EvTable {
 public:
  static constexpr size_t kMaxEntries = 4096;
  static constexpr unsigned kMaxPlanes = 16;

  // 1 to 4,096 entries, each EV non-zero and listed once, each plane 0 to 15; errors name
  // the entry ("ev_set[3].ev: 0 is not an entropy value").
  static Expected<EvTable, std::string> create(std::vector<EvEntry> set,
                                               PathFailureParameters parameters);
  // Section 20.1's default: EV_i = 0xC000 | ((16 x qpn + i) mod 2^14), plane i mod planes.
  static std::vector<EvEntry> default_set(uint32_t qpn, unsigned planes, unsigned count);

  size_t size() const { return entries_.size(); }
  const EvEntry& entry(size_t i) const { return entries_[i].entry; }
  EvState state(size_t i) const { return entries_[i].state; }
  std::optional<size_t> find(uint16_t ev) const;
  size_t good_count() const;
  const EvCounters& counters() const { return counters_; }
  // Each EV event is added to `device` too (the device's counters outlive the QP's table).
  void count_into(EvCounters* device) { device_counters_ = device; }
  const PathFailureParameters& parameters() const { return parameters_; }
  // Some entry is ASSUMED_BAD (O(1): the data path asks on every run).
  bool any_assumed_bad() const { return assumed_bad_ > 0; }

  // GOOD and its plane's port usable: selection may draw it.
  bool usable(size_t i, uint64_t now_ns) const;
  bool damped(size_t i, uint64_t now_ns) const;

  // The RTO of a packet last sent on entry i expired. Returns whether that moved the entry to
  // ASSUMED_BAD (MR-PF-14 watches such a move for a spurious timeout).
  bool on_rto(size_t i, uint64_t now_ns);
  // The receiver counted an ACK-path loss on entry i (section 25.1, "ACK-path attribution").
  void on_ack_path_loss(size_t i, uint64_t now_ns);
  // An Ext ACK with PRB = 1 echoed entry i's EV.
  void on_probe_answer(size_t i, uint64_t now_ns);
  // The timeout that moved entry i to ASSUMED_BAD was spurious (an ACK with DUP = 1 echoed
  // the retransmission that followed it, whose PSN had been sent once before).
  void on_spurious_rto(size_t i);
  // Management denies entry i: DENIED, never drawn until allowed (MR-PF-11). `stop_using`
  // false is the ext-denied-ev-used mutant's: DENIED all the same, but drawn as if GOOD.
  void deny(size_t i, bool stop_using = true);
  void allow(size_t i);
  void port_down(unsigned plane, uint64_t now_ns);
  // `hold` false is the ext-port-up-no-hold mutant's: the plane is usable at once (MR-PF-16).
  void port_up(unsigned plane, uint64_t now_ns, bool hold = true);

  // ASSUMED_BAD entries to probe now (PATHPROBE), each then due again after twice its last
  // interval (one whose plane's port is not usable is skipped, not probed); without PATHPROBE,
  // entries whose hold-down has passed return to GOOD here.
  std::vector<size_t> due_probes(uint64_t now_ns);
  // When due_probes() next has work: with PATHPROBE an entry to probe, without it an
  // entry whose hold-down ends (so that the QP is woken then and the entry is GOOD on time,
  // for selection and for query_qp alike); none without ASSUMED_BAD entries. O(entries).
  std::optional<uint64_t> next_due_ns() const;

 private:
  struct Slot {
    EvEntry entry;
    EvState state = EvState::kGood;
    uint64_t entered_bad_ns = 0;
    uint64_t next_probe_ns = 0;
    uint64_t probe_interval_ns = 0;
    bool was_damped = false;
    bool drawn_while_denied = false;  // the ext-denied-ev-used mutant's DENIED entry
    // Vectors, not deques: an empty libstdc++ deque allocates about 600 bytes, and an Ext QP
    // has 16 entries and 16 ports of these (41 KB per QP measured with deques, bench transport).
    std::vector<uint64_t> failures;    // times it entered ASSUMED_BAD, within the flap window
    std::vector<uint64_t> ack_losses;  // within the ACK-loss window
  };
  struct Port {
    bool up = true;
    uint64_t usable_from_ns = 0;
    std::vector<uint64_t> downs;  // within the flap window
  };

  EvTable(std::vector<Slot> slots, PathFailureParameters parameters)
      : entries_(std::move(slots)), parameters_(parameters) {}
  // GOOD -> ASSUMED_BAD unless that would leave N_EV_MIN_ACTIVE or fewer GOOD entries.
  bool assume_bad(size_t i, uint64_t now_ns);
  void return_to_good(size_t i);
  uint64_t hold_until(size_t i, uint64_t now_ns) const;
  // One EV event, in this table's counters and its device's.
  void count(uint64_t EvCounters::*event) {
    ++(counters_.*event);
    if (device_counters_ != nullptr) ++(device_counters_->*event);
  }
  static void forget_before(std::vector<uint64_t>& times, uint64_t now_ns, uint64_t window_ns);

  std::vector<Slot> entries_;
  PathFailureParameters parameters_;
  Port ports_[kMaxPlanes];
  EvCounters counters_;
  EvCounters* device_counters_ = nullptr;
  size_t assumed_bad_ = 0;
};

}  // namespace mr::transport::ext
