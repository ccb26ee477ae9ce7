// File: flow_label_port.h
//
// The UDP source port of a packet whose IPv6 flow label carries its entropy: Linux's
// rdma_flow_label_to_udp_sport fold, 0xC000 | ((FL & 0x3FFF) ^ (FL >> 14)), which MetaRoCE's
// EV mode FLOW uses with FL = (plane << 16) | EV (spec section 20.2, MR-MU-03). The judges
// compute it here, not with the reference's encoder, so that they do not share its arithmetic.
#pragma once

#include <cstdint>

namespace mr::analyze {

inline uint16_t flow_label_udp_port(uint32_t flow_label) {
  return static_cast<uint16_t>(0xC000 | ((flow_label & 0x3FFF) ^ (flow_label >> 14)));
}

}  // namespace mr::analyze
