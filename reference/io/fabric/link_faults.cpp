#include "reference/io/fabric/link_faults.h"

namespace mr::io::fabric {

bool covers(const BlackHole& hole, const CableRef& cable) {
  return hole.plane == cable.plane && (!hole.cable || *hole.cable == cable);
}

bool flap_down(const LinkFlap& flap, uint64_t t_ns) {
  if (t_ns < flap.down_ns) return false;
  const uint64_t down_for = flap.up_ns - flap.down_ns;
  if (flap.period_ns == 0) return t_ns < flap.up_ns;
  return (t_ns - flap.down_ns) % flap.period_ns < down_for;
}

LinkFaults link_faults(const FabricConfig& config, const CableRef& cable, uint64_t stream) {
  LinkFaults faults;
  // Salted so that loss draws never coincide with the RED streams of the same link.
  faults.loss_random = SeededRandom(derive_seed(config.seed, stream, 0x1055));
  for (const BlackHole& hole : config.faults.black_holes) {
    if (covers(hole, cable)) faults.add(hole);
  }
  for (const LinkFlap& flap : config.faults.flaps) {
    if (flap.cable == cable) faults.flaps.push_back(flap);
  }
  for (const DegradedLink& d : config.faults.degraded) {
    if (d.cable == cable) faults.rate_fraction *= d.rate_fraction;
  }
  // Independent losses compose: survive all of them.
  double survive = 1.0;
  for (const RandomLoss& loss : config.faults.losses) {
    if (!loss.cable || *loss.cable == cable) survive *= 1.0 - loss.probability;
  }
  faults.loss_probability = 1.0 - survive;
  return faults;
}

}  // namespace mr::io::fabric
