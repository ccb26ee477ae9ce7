#include "reference/io/network_namespace.h"

#include <gtest/gtest.h>
#include <net/if.h>
#include <unistd.h>

#include "reference/io/command.h"
#include "reference/io/kernel_ping.h"
#include "reference/io/veth_pair.h"

namespace mr::io {
namespace {

// Creating namespaces needs root and a Bazel test outside the sandbox (tags = ["local"]).
#define SKIP_UNLESS_ROOT()                                                       \
  if (geteuid() != 0) GTEST_SKIP() << "needs root to create network namespaces"; \
  if (!run_command({"ip", "netns", "list"})) GTEST_SKIP() << "no usable `ip netns` here"

TEST(Command, ReturnsOutputAndNamesFailures) {
  auto out = run_command({"echo", "hello"});
  ASSERT_TRUE(out) << out.error();
  EXPECT_EQ(*out, "hello\n");
  auto bad = run_command({"sh", "-c", "echo oops >&2; exit 3"});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error(), "sh -c echo oops >&2; exit 3: exit 3: oops");
  auto missing = run_command({"no-such-program-mrt"});
  ASSERT_FALSE(missing);
  auto slow = run_command({"sleep", "5"}, 100);
  ASSERT_FALSE(slow);
  EXPECT_NE(slow.error().find("killed after 100 ms"), std::string::npos);
}

TEST(VethPair, OnlyBenchmarkingAddressesAreAccepted) {
  EXPECT_TRUE(is_benchmarking_cidr("198.18.0.1/24"));
  EXPECT_TRUE(is_benchmarking_cidr("198.19.255.254/15"));
  EXPECT_FALSE(is_benchmarking_cidr("198.20.0.1/24"));
  EXPECT_FALSE(is_benchmarking_cidr("10.0.0.1/8"));
  EXPECT_FALSE(is_benchmarking_cidr("198.18.0.1/8"));  // would claim more than the range
  EXPECT_FALSE(is_benchmarking_cidr("198.18.0.1"));
  auto refused = VethPair::create({.kernel_ipv4_a = "192.168.1.1/24"});
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().find("198.18.0.0/15"), std::string::npos);
}

TEST(NetworkNamespace, IsCreatedUniqueAndDeleted) {
  SKIP_UNLESS_ROOT();
  const auto before = run_command({"ip", "netns", "list"});
  std::string name_a;
  std::string name_b;
  {
    auto a = NetworkNamespace::create();
    ASSERT_TRUE(a) << a.error();
    auto b = NetworkNamespace::create();
    ASSERT_TRUE(b) << b.error();
    name_a = a->name();
    name_b = b->name();
    EXPECT_NE(name_a, name_b);
    EXPECT_EQ(name_a.rfind("mrt-" + std::to_string(getpid()) + "-", 0), 0U) << name_a;
    auto links = a->ip({"-o", "link", "show"});
    ASSERT_TRUE(links) << links.error();
    EXPECT_NE(links->find("lo:"), std::string::npos);
    EXPECT_EQ(links->find("eth0"), std::string::npos);  // not the root namespace
    EXPECT_FALSE(no_namespaces_left_by_this_process());
  }
  EXPECT_TRUE(no_namespaces_left_by_this_process());
  EXPECT_EQ(run_command({"ip", "netns", "list"}), before);
}

TEST(NetworkNamespace, RunInsideSeesOnlyTheNamespacesInterfaces) {
  SKIP_UNLESS_ROOT();
  auto veth = VethPair::create();
  ASSERT_TRUE(veth) << veth.error();
  bool found = false;
  auto ran = veth->a().run_inside([&] { found = if_nametoindex(VethPair::kInterfaceA) != 0; });
  ASSERT_TRUE(ran) << ran.error();
  EXPECT_TRUE(found);
  // This thread stayed in the root namespace.
  EXPECT_EQ(if_nametoindex(VethPair::kInterfaceA), 0U);
}

TEST(NetworkNamespace, TapLivesInsideTheNamespace) {
  SKIP_UNLESS_ROOT();
  auto ns = NetworkNamespace::create();
  ASSERT_TRUE(ns) << ns.error();
  EXPECT_FALSE(ns->add_tap("mrttap0", "10.0.0.1/24"));  // not a benchmarking address
  auto made = ns->add_tap("mrttap0", "198.18.1.1/24");
  ASSERT_TRUE(made) << made.error();
  auto shown = ns->ip({"-o", "addr", "show", "dev", "mrttap0"});
  ASSERT_TRUE(shown) << shown.error();
  EXPECT_NE(shown->find("198.18.1.1/24"), std::string::npos) << *shown;
  EXPECT_EQ(if_nametoindex("mrttap0"), 0U);  // not in the root namespace
}

TEST(VethPair, KernelsOnBothEndsPingEachOther) {
  SKIP_UNLESS_ROOT();
  {
    auto veth =
        VethPair::create({.kernel_ipv4_a = "198.18.0.1/24", .kernel_ipv4_b = "198.18.0.2/24"});
    ASSERT_TRUE(veth) << veth.error();
    auto ping = kernel_ping(veth->a(), "198.18.0.2", VethPair::kInterfaceA, 1, 2'000'000'000);
    EXPECT_TRUE(ping) << ping.error();
    // The veth never appeared in the root namespace.
    EXPECT_EQ(if_nametoindex(VethPair::kInterfaceA), 0U);
    EXPECT_EQ(if_nametoindex(VethPair::kInterfaceB), 0U);
  }
  EXPECT_TRUE(no_namespaces_left_by_this_process());
}

}  // namespace
}  // namespace mr::io
