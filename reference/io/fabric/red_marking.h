// File: red_marking.h
//
// The RED-style decision of EcnMarking: whether a switch marks an ECN-capable frame CE
// when `depth_bytes` are already waiting in its egress queue (DCQCN's Kmin/Kmax/Pmax).
#pragma once

#include <cstdint>

#include "reference/io/fabric/fabric_config.h"
#include "reference/io/fabric/seeded_random.h"

namespace mr::io::fabric {

inline double red_mark_probability(const EcnMarking& ecn, uint64_t depth_bytes) {
  if (depth_bytes <= ecn.kmin_bytes) return 0;
  if (depth_bytes > ecn.kmax_bytes) return 1;
  const double span = static_cast<double>(ecn.kmax_bytes - ecn.kmin_bytes);
  return ecn.max_probability * static_cast<double>(depth_bytes - ecn.kmin_bytes) / span;
}

inline bool red_marks(const EcnMarking& ecn, uint64_t depth_bytes, SeededRandom& random) {
  return random.chance(red_mark_probability(ecn, depth_bytes));
}

}  // namespace mr::io::fabric
