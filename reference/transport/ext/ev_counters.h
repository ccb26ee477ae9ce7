// File: ev_counters.h
//
// The EV events of spec section 25.1, by the counter names the spec gives them. Each Ext
// QP's EV table keeps its own, and adds each event to its device's, which the control
// protocol's `counters` reports (a test reads a device, not a QP's table).
#pragma once

#include <cstdint>

namespace mr::transport::ext {

struct EvCounters {
  uint64_t ev_assumed_bad = 0;   // a timeout or a silent EV moved an entry to ASSUMED_BAD
  uint64_t ev_ack_path_bad = 0;  // ACK-path losses did
  uint64_t ev_good = 0;          // a probe reply returned one to GOOD
  uint64_t ev_spurious_rto = 0;  // a DUP = 1 ACK proved its timeout spurious
  uint64_t ev_damped = 0;        // an entry became damped (N_PF_FLAP_MAX failures)
};

}  // namespace mr::transport::ext
