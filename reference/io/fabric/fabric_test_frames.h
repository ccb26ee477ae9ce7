// File: fabric_test_frames.h
//
// For the fabric's tests and benchmark: RoCEv2 frames (RC SEND, padded to a chosen frame
// length) between two endpoints of a plane, addressed by the fabric's plan, and a loop
// that runs a fabric's events while moving the virtual clock along.
//
// Usage:
//   Frame f = test_frame(config, {.plane = 0, .src = 1, .dst = 2, .sport = 0xc001});
//   run_to_quiet(*fabric, clock);
#pragma once

#include <cstdint>

#include "reference/io/clock.h"
#include "reference/io/fabric/fabric.h"
#include "reference/io/link.h"

namespace mr::io::fabric {

struct TestFrameSpec {
  uint32_t plane = 0;
  uint32_t src = 0;
  uint32_t dst = 1;
  uint16_t sport = 0xc000;
  uint32_t frame_bytes = 1078;  // Ethernet frame without FCS; at least the headers
  bool ipv6 = false;
  uint32_t flow_label = 0;
  uint8_t dscp = 26;
  uint8_t ecn = 2;  // ECT(0)
  uint32_t psn = 0;
};

Frame test_frame(const FabricConfig& config, const TestFrameSpec& spec);

// Runs events, setting the clock to each, until none is left or the clock would pass
// limit_ns (then it stops at limit_ns). Returns the number of events run.
uint64_t run_to_quiet(Fabric& fabric, VirtualClock& clock, uint64_t limit_ns = UINT64_MAX);

}  // namespace mr::io::fabric
