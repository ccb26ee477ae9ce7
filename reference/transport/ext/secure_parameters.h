// File: secure_parameters.h
//
// Secure mode's parameters (spec section 30) and the switches its mutants turn.
#pragma once

#include <cstdint>

namespace mr::transport::ext {

struct SecureParameters {
  uint64_t replay_window = 4096;               // N_SE_REPLAY_WINDOW, packets
  uint64_t rekey_packets = uint64_t{1} << 32;  // N_SE_REKEY_PACKETS
  uint64_t key_drain_ns = 100'000'000;         // T_SE_KEY_DRAIN (100,000 us)
  // Mutant switches: each true in a conformant device.
  bool checks_replay = true;          // MR-SE-06
  bool accepts_reordered_pns = true;  // MR-SE-07
  bool rotates_on_request = true;     // MR-SE-08
  bool drains_previous_epoch = true;  // MR-SE-09: the previous epoch ends after the drain
  bool new_pn_per_packet = true;      // MR-SE-04: the ext-secure-pn-reused mutant repeats one
};

}  // namespace mr::transport::ext
