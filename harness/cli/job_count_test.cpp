// job_count: --jobs for run and mutants.
#include "harness/cli/job_count.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <thread>

namespace mr::cli {
namespace {

TEST(JobCount, TakesOneTo256AsGiven) {
  EXPECT_EQ(job_count(1).value(), 1);
  EXPECT_EQ(job_count(3).value(), 3);
  EXPECT_EQ(job_count(256).value(), 256);
}

TEST(JobCount, ZeroIsOnePerUsableCore) {
  auto n = job_count(0);
  ASSERT_TRUE(n) << n.error();
  EXPECT_GE(*n, 1);
  EXPECT_LE(*n, static_cast<int>(std::max(1U, std::thread::hardware_concurrency())));
}

TEST(JobCount, OutOfRangeSaysWhatToGive) {
  for (const int bad : {-1, 257}) {
    auto n = job_count(bad);
    ASSERT_FALSE(n) << bad;
    EXPECT_EQ(n.error(),
              "--jobs " + std::to_string(bad) + ": give 1 to 256, or 0 for one per core");
  }
}

}  // namespace
}  // namespace mr::cli
