// Once a fabric has carried a traffic pattern, carrying it again allocates nothing: packet
// buffers, queues and the event wheel keep their capacity (a counting operator new).
#include <gtest/gtest.h>

#include <vector>

#include "reference/io/fabric/fabric.h"
#include "reference/io/fabric/fabric_test_frames.h"
#include "reference/io/heap_allocation_counter.h"

namespace mr::io::fabric {
namespace {

TEST(FabricAllocation, RepeatingATrafficPatternAllocatesNothing) {
  VirtualClock clock;
  FabricConfig config{.endpoints = 8, .seed = 3};
  config.planes.assign(2, PlaneTopology{.leaves = 2,
                                        .spines = 2,
                                        .hosts_per_leaf = 4,
                                        .host_link = {.queue_bytes = 32 * 1024},
                                        .spine_link = {.queue_bytes = 32 * 1024}});
  config.ecn = {.enabled = true, .kmin_bytes = 4'000, .kmax_bytes = 20'000};
  config.trimming = {.enabled = true};
  auto fabric = Fabric::create(clock, config).value();
  // Everyone sends 16 frames to everyone else on both planes, sprayed over source ports.
  std::vector<std::vector<Frame>> bursts;
  for (uint32_t plane = 0; plane < 2; ++plane) {
    for (uint32_t src = 0; src < 8; ++src) {
      std::vector<Frame>& burst = bursts.emplace_back();
      for (uint32_t k = 0; k < 16 * 7; ++k) {
        const uint32_t dst = (src + 1 + k % 7) % 8;
        burst.push_back(test_frame(config, {.plane = plane,
                                            .src = src,
                                            .dst = dst,
                                            .sport = uint16_t(0xc000 + k),
                                            .frame_bytes = 4096}));
      }
    }
  }
  std::vector<Frame> in(1024);
  auto round = [&] {
    for (uint32_t plane = 0; plane < 2; ++plane) {
      for (uint32_t src = 0; src < 8; ++src) {
        EXPECT_EQ(fabric->port(plane, src).send_burst(bursts[plane * 8 + src]), 16U * 7);
      }
    }
    run_to_quiet(*fabric, clock);
    size_t delivered = 0;
    for (uint32_t plane = 0; plane < 2; ++plane) {
      for (uint32_t e = 0; e < 8; ++e) delivered += fabric->port(plane, e).receive_burst(in, 0);
    }
    return delivered;
  };
  // Two rounds to warm up: the first fills the receive vector's buffers as well.
  const uint64_t start = process_heap_allocations();
  ASSERT_GT(round(), 0U);
  EXPECT_GT(process_heap_allocations() - start, 0U) << "the counter counts";
  ASSERT_GT(round(), 0U);
  const uint64_t before = process_heap_allocations();
  size_t delivered = 0;
  for (int i = 0; i < 5; ++i) delivered += round();
  EXPECT_EQ(process_heap_allocations() - before, 0U) << "over " << delivered << " frames";
  EXPECT_GT(fabric->plane_counters(0).trimmed, 0U);  // the pattern congests the fabric
}

}  // namespace
}  // namespace mr::io::fabric
