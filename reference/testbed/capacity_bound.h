// File: capacity_bound.h
//
// The soonest a scenario's flows could all finish on its fabric: the largest of the
// times its cuts need to carry what crosses them (bytes over capacity), for every host's
// cables (out and in, over every plane), every leaf's spine cables (up and down), and every
// pair of leaves (through each spine, the slower of the up and the down cable). Degraded
// cables count at their reduced rate; black holes, flaps and random loss are not counted
// (they are events in time, not capacity). A lower bound, not a schedule: meeting it needs
// perfect load balance, so a ratio to it says how far a transport is from what the fabric
// allows, where a ratio to bytes over the host rate also counts what the fabric took away.
//
//   const uint64_t bound = capacity_bound_ns(permutation(128, 2 << 20, 8));
#pragma once

#include <cstdint>

#include "reference/testbed/fabric_scenario.h"

namespace mr::testbed {

// Every flow is taken to start at time 0 (its start_ns is ignored). A cable runs at one rate
// both ways, so READs (data from dst to src) have the bound WRITEs have. 0 without flows.
uint64_t capacity_bound_ns(const Scenario& scenario);

}  // namespace mr::testbed
