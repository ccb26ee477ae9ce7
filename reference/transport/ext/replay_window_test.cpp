#include "reference/transport/ext/replay_window.h"

#include <gtest/gtest.h>

namespace mr::transport::ext {
namespace {

TEST(ReplayWindowTest, AcceptsEachPnOnceInAnyOrderWithinTheWindow) {
  ReplayWindow w(64);
  for (uint64_t pn : {5, 1, 3, 2, 64, 4}) {
    EXPECT_FALSE(w.is_replay(pn)) << pn;
    w.record(pn);
    EXPECT_TRUE(w.is_replay(pn)) << pn;
  }
  EXPECT_EQ(w.highest(), 64u);
  EXPECT_FALSE(w.is_replay(6));  // never seen, still inside (0, 64]
}

TEST(ReplayWindowTest, APnAtOrBelowHighestMinusWidthIsAReplay) {
  ReplayWindow w(64);
  w.record(100);
  EXPECT_TRUE(w.is_replay(36));   // = 100 - 64
  EXPECT_FALSE(w.is_replay(37));  // inside, unseen
  w.record(37);
  EXPECT_TRUE(w.is_replay(37));
}

TEST(ReplayWindowTest, SlotsReusedAfterAJumpForgetTheirOldPns) {
  ReplayWindow w(64);
  for (uint64_t pn = 1; pn <= 64; ++pn) w.record(pn);
  w.record(1000);  // every slot passed over is cleared
  for (uint64_t pn = 937; pn < 1000; ++pn) EXPECT_FALSE(w.is_replay(pn)) << pn;
  EXPECT_TRUE(w.is_replay(936));
  EXPECT_TRUE(w.is_replay(1000));
}

TEST(ReplayWindowTest, TheStrictOrderMutantRefusesAnyPnBelowTheHighest) {
  ReplayWindow w(64, /*strict=*/true);
  w.record(5);
  EXPECT_TRUE(w.is_replay(4));
  EXPECT_FALSE(w.is_replay(6));
}

}  // namespace
}  // namespace mr::transport::ext
