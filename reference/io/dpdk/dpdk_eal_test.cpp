// DpdkEal: DPDK starts its EAL once per process. Bad arguments leave it unusable, so they
// are tried in child processes (death tests); the rest is the story of this process, in
// order: a start, a second start, refusals, the end.
#include "reference/io/dpdk/dpdk_eal.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

#include "reference/io/dpdk/dpdk_link.h"

namespace mr::io::dpdk {
namespace {

std::vector<std::string> with(std::vector<std::string> arguments, const std::string& extra) {
  arguments.push_back(extra);
  return arguments;
}

std::shared_ptr<DpdkEal>& shared_eal() {
  static std::shared_ptr<DpdkEal> eal;
  return eal;
}

// In a child: prints the error of a start that must fail and exits 0 (1 if it started).
[[noreturn]] void start_and_print_error(const std::vector<std::string>& arguments) {
  auto eal = DpdkEal::start(arguments);
  if (eal) std::_Exit(1);
  std::fprintf(stderr, "error: %s\n", eal.error().c_str());
  auto again = DpdkEal::start();
  std::fprintf(stderr, "then: %s\n", again ? "started" : again.error().c_str());
  std::fflush(stderr);
  std::_Exit(0);
}

TEST(DpdkEalDeathTest, AnUnknownOptionIsAnErrorThatNamesIt) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(start_and_print_error(with(DpdkEal::default_arguments(), "--no-such-option")),
              ::testing::ExitedWithCode(0),
              "error: rte_eal_init\\(.*--no-such-option\\): Invalid argument: .*unrecognized "
              "option '--no-such-option'");
}

TEST(DpdkEalDeathTest, ABadValueIsAnErrorThatNamesIt) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(start_and_print_error(with(DpdkEal::default_arguments(), "--lcores=0@(zero)")),
              ::testing::ExitedWithCode(0), "error: .*EAL: invalid parameter for --lcores");
}

TEST(DpdkEalDeathTest, NoUsageTextAndNoSecondAttemptAfterAFailedStart) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(start_and_print_error({"--no-such-option"}), ::testing::ExitedWithCode(0),
              "then: DPDK's EAL cannot start in this process after an earlier failure");
  EXPECT_EXIT(start_and_print_error({"--no-such-option"}), ::testing::ExitedWithCode(0),
              "^error: [^\n]*\nthen: [^\n]*\n$");  // nothing else printed: no usage text
}

TEST(DpdkEal, StartsAndReusesTheRunningEal) {
  auto eal = DpdkEal::start();
  ASSERT_TRUE(eal) << eal.error();
  shared_eal() = *eal;
  auto again = DpdkEal::start();
  ASSERT_TRUE(again) << again.error();
  EXPECT_EQ(again->get(), eal->get());
}

TEST(DpdkEal, OtherArgumentsAreRefusedOnceItRuns) {
  ASSERT_TRUE(shared_eal());
  auto other = DpdkEal::start({"--no-huge", "-m", "128"});
  ASSERT_FALSE(other);
  EXPECT_NE(other.error().find("runs already"), std::string::npos) << other.error();
  EXPECT_NE(other.error().find("-m 128"), std::string::npos) << other.error();
}

TEST(DpdkEal, AnUnknownDeviceIsAnErrorThatNamesIt) {
  ASSERT_TRUE(shared_eal());
  auto link = DpdkLink::attach(shared_eal(), "net_no_such_driver0,iface=x");
  ASSERT_FALSE(link);
  EXPECT_NE(link.error().find("net_no_such_driver0"), std::string::npos) << link.error();
  EXPECT_NE(link.error().find("failed to parse device"), std::string::npos) << link.error();
  auto port = DpdkLink::open(shared_eal(), "net_not_probed0");
  ASSERT_FALSE(port);
  EXPECT_NE(port.error().find("net_not_probed0: no DPDK port"), std::string::npos) << port.error();
}

TEST(DpdkEal, CannotStartAgainAfterTheLastHandleWent) {
  ASSERT_TRUE(shared_eal());
  shared_eal().reset();  // rte_eal_cleanup
  auto eal = DpdkEal::start();
  ASSERT_FALSE(eal);
  EXPECT_NE(eal.error().find("cannot start again"), std::string::npos) << eal.error();
}

}  // namespace
}  // namespace mr::io::dpdk
