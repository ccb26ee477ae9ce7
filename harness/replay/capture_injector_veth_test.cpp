// The injector on a real interface: a capture replayed onto one end of a veth pair between
// two namespaces of the test's own arrives whole at the other end, counted by the kernel.
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

#include "harness/replay/capture_injector.h"
#include "harness/replay/recorded_connection.h"
#include "reference/io/command.h"
#include "reference/io/veth_pair.h"

namespace mr::replay {
namespace {

constexpr const char* kCapture = "pcaps/rxe/rxe-6.1-ipv4-send-retransmits.pcapng";

#define SKIP_UNLESS_ROOT()                                                       \
  if (geteuid() != 0) GTEST_SKIP() << "needs root to create network namespaces"; \
  if (!io::run_command({"ip", "netns", "list"})) GTEST_SKIP() << "no usable `ip netns` here"

// rx_packets of the B end, as the kernel counts frames that reached it.
uint64_t received_on_b(io::VethPair& veth) {
  auto text = veth.b().exec({"cat", std::string("/sys/class/net/") + io::VethPair::kInterfaceB +
                                        "/statistics/rx_packets"});
  EXPECT_TRUE(text.has_value()) << text.error();
  return text ? std::stoull(*text) : 0;
}

Expected<InjectResult, std::string> inject_from_a(io::VethPair& veth, const InjectOptions& o) {
  Expected<InjectResult, std::string> result = Unexpected(std::string("did not run"));
  auto ran = veth.a().run_inside(
      [&] { result = inject_capture_onto(kCapture, io::VethPair::kInterfaceA, o); });
  if (!ran) return Unexpected(ran.error());
  return result;
}

TEST(CaptureInjectorVeth, EveryFrameOfAFastReplayArrivesAtThePeer) {
  SKIP_UNLESS_ROOT();
  auto veth = io::VethPair::create({.kernel_ipv6 = false});
  ASSERT_TRUE(veth.has_value()) << veth.error();
  const uint64_t before = received_on_b(*veth);
  auto r = inject_from_a(*veth, {.fast = true});
  ASSERT_TRUE(r.has_value()) << r.error();
  EXPECT_GT(r->sent, 0u);
  EXPECT_EQ(r->sent, r->frames_in_capture);
  EXPECT_EQ(received_on_b(*veth) - before, r->sent);
}

TEST(CaptureInjectorVeth, AConnectionsReplayPutsExactlyItsFramesOnTheWire) {
  SKIP_UNLESS_ROOT();
  auto c = extract_connection(kCapture, 0);
  ASSERT_TRUE(c.has_value()) << c.error();
  auto veth = io::VethPair::create({.kernel_ipv6 = false});
  ASSERT_TRUE(veth.has_value()) << veth.error();
  const uint64_t before = received_on_b(*veth);
  auto r = inject_from_a(*veth, {.connection = 0, .fast = true});
  ASSERT_TRUE(r.has_value()) << r.error();
  EXPECT_EQ(r->sent, c->packets.size());
  EXPECT_EQ(received_on_b(*veth) - before, c->packets.size());
}

TEST(CaptureInjectorVeth, AnInterfaceThatDoesNotExistIsAnErrorNamingIt) {
  SKIP_UNLESS_ROOT();
  auto veth = io::VethPair::create({.kernel_ipv6 = false});
  ASSERT_TRUE(veth.has_value()) << veth.error();
  Expected<InjectResult, std::string> r = Unexpected(std::string("did not run"));
  ASSERT_TRUE(veth->a().run_inside([&] { r = inject_capture_onto(kCapture, "mrt-none", {}); }));
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().find("mrt-none"), std::string::npos) << r.error();
}

}  // namespace
}  // namespace mr::replay
