// File: link_faults.h
//
// The faults configured on one directed link, gathered when the fabric is built: whether
// it is black-holed, when it is down (flaps), the fraction of its rate it runs at, and its
// random loss with a stream of its own drawn from the fabric seed.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "reference/io/fabric/fabric_config.h"
#include "reference/io/fabric/seeded_random.h"

namespace mr::io::fabric {

// Whether the black hole covers `cable` (its plane's, or that one cable).
bool covers(const BlackHole& hole, const CableRef& cable);

// True while the flap holds its cable down at time t.
bool flap_down(const LinkFlap& flap, uint64_t t_ns);

struct LinkFaults {
  std::optional<uint64_t> black_hole_from_ns;  // black-holed from then on
  std::vector<LinkFlap> flaps;
  double rate_fraction = 1.0;
  double loss_probability = 0;
  SeededRandom loss_random;

  void add(const BlackHole& hole) {
    black_hole_from_ns = std::min(black_hole_from_ns.value_or(hole.from_ns), hole.from_ns);
  }
  bool black_holed(uint64_t t_ns) const {
    return black_hole_from_ns && t_ns >= *black_hole_from_ns;
  }
  bool down(uint64_t t_ns) const {
    for (const LinkFlap& f : flaps) {
      if (flap_down(f, t_ns)) return true;
    }
    return false;
  }
};

// The faults of `cable` (both of its directions share them); `stream` seeds its loss
// draws and must differ per directed link.
LinkFaults link_faults(const FabricConfig& config, const CableRef& cable, uint64_t stream);

}  // namespace mr::io::fabric
