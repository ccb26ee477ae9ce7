// File: scenario_catalog.h
//
// The scenarios of `./metaroce bench fabric`, after UEC's simulator regression set
// (uet-htsim), scaled to what runs on one core in seconds: each returns the Scenario with
// Part II offered (multipath spraying); reset `mxcap` for base RoCEv2 on the same fabric and
// seed. Every host link runs at 100 Gb/s, 1 us of propagation, a 256 KiB egress buffer.
//
//   Scenario s = plane_failure({.planes = 8, .hosts = 16, .bytes = 8 << 20});
#pragma once

#include <cstdint>

#include "reference/testbed/fabric_scenario.h"

namespace mr::testbed {

// P planes, each two leaves of hosts/2 hosts and two spines (non-blocking: spine links at
// hosts/4 x 100 Gb/s); host i writes `bytes` to host i + hosts/2 (every flow crosses the
// spines). With fail_at_ns, every spine cable of one plane is black-holed from then on (a
// silent failure the hosts' ports do not see): the plane flow 0's base QP keeps to.
struct PlaneFailureShape {
  uint32_t planes = 8;
  uint32_t hosts = 16;
  uint64_t bytes = 8 << 20;
  std::optional<uint64_t> fail_at_ns;
  uint64_t seed = 1;
};
Scenario plane_failure(const PlaneFailureShape& shape);

// Two hosts on one switch, every link losing `probability` of its frames; one flow.
Scenario random_loss(double probability, uint64_t bytes, uint64_t seed = 1);

// `senders` hosts each write `bytes` to one receiver through one switch at the same time.
Scenario incast(uint32_t senders, uint64_t bytes, uint64_t seed = 1);

// `hosts` hosts under leaves of 16 with 8 spines, non-blocking (spine links at 200 Gb/s), one
// plane; host i writes `bytes` to host (i + shift) mod hosts, a shift that crosses leaves
// (a permutation: every host sends one flow and receives one). With degraded_spine_links,
// that many leaf-spine cables (spread over leaves and spines) run at 10% of their rate.
Scenario permutation(uint32_t hosts, uint64_t bytes, uint32_t degraded_spine_links = 0,
                     uint64_t seed = 1);

// The window parameters of section 26 for a QP that sprays over `planes` 100 Gb/s planes:
// B_CWND_INIT and B_CWND_MAX scale with the capacity (the PIXIT defaults are for one
// 100 Gb/s path at a 10 us base RTT).
transport::ext::CongestionParameters congestion_for(uint32_t planes);

// The scenario with trimming switches (spec section 23, B_TRIM_MIN cuts, IP lengths
// rewritten) and TRIM offered by every Ext device: a full queue cuts a data packet to its
// headers instead of dropping it, and the receiver's NAK 0x65/0x66 brings it back at once.
Scenario with_trimming(Scenario s);

// The scenario with receiver credits (spec section 26.7) offered by every Ext device: each
// receiver hands out credit at 0.95 of its line rate (its host links on every plane),
// shared equally among the QPs with data for it; senders start with B_CR_UNSOLICITED.
Scenario with_credits(Scenario s);

// The ideal time for `bytes` over a bottleneck of `rate_bps`: what a completion is measured
// against.
inline uint64_t ideal_ns(uint64_t bytes, double rate_bps) {
  return static_cast<uint64_t>(static_cast<double>(bytes) * 8e9 / rate_bps);
}

}  // namespace mr::testbed
