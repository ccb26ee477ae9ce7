#include "reference/transport/ext/secure_receiver.h"

#include <gtest/gtest.h>

namespace mr::transport::ext {
namespace {

SecurityAssociation sa(uint16_t epoch) {
  SecurityAssociation s;
  s.epoch = epoch;
  s.key.fill(static_cast<uint8_t>(epoch));
  s.spi = 0x200U + epoch;
  return s;
}

wire::Sech sech(uint16_t epoch, uint64_t pn) {
  wire::Sech s;
  s.epoch = epoch;
  s.spi = 0x200U + epoch;
  s.pn = pn;
  return s;
}

TEST(SecureReceiverTest, RefusesAnUnknownSpiEpochVersionSuiteOrPnZero) {
  SecureReceiver rx({sa(1)}, {});
  EXPECT_TRUE(rx.admit(sech(1, 1), 0));
  wire::Sech s = sech(1, 1);
  s.spi = 0x999;
  EXPECT_EQ(rx.admit(s, 0).error(), SecureRefusal::kUnknownKey);
  EXPECT_EQ(rx.admit(sech(3, 1), 0).error(), SecureRefusal::kUnknownKey);
  s = sech(1, 1);
  s.suite = 2;
  EXPECT_EQ(rx.admit(s, 0).error(), SecureRefusal::kUnknownKey);
  s = sech(1, 1);
  s.ver = 2;
  EXPECT_EQ(rx.admit(s, 0).error(), SecureRefusal::kUnknownKey);
  EXPECT_EQ(rx.admit(sech(1, 0), 0).error(), SecureRefusal::kUnknownKey);
  EXPECT_EQ(rx.admit(sech(1, uint64_t{1} << 63), 0).error(), SecureRefusal::kUnknownKey);
}

TEST(SecureReceiverTest, ARecordedPnIsAReplay) {
  SecureReceiver rx({sa(1)}, {});
  rx.record(sech(1, 4), 0);
  EXPECT_EQ(rx.admit(sech(1, 4), 0).error(), SecureRefusal::kReplay);
  EXPECT_TRUE(rx.admit(sech(1, 3), 0));
}

TEST(SecureReceiverTest, AnInstalledEpochIsNeverReplacedSoItsReplayWindowStays) {
  SecureReceiver rx({sa(1)}, {});
  rx.record(sech(1, 4), 0);
  EXPECT_FALSE(rx.install(sa(1)));
  EXPECT_EQ(rx.admit(sech(1, 4), 0).error(), SecureRefusal::kReplay);
  EXPECT_TRUE(rx.install(sa(2)));
  EXPECT_TRUE(rx.installed(2));
}

TEST(SecureReceiverTest, TheNextEpochBecomesCurrentAndThePreviousDrains) {
  SecureParameters p;
  p.key_drain_ns = 1000;
  SecureReceiver rx({sa(1), sa(2)}, p);
  EXPECT_TRUE(rx.admit(sech(2, 1), 10));  // the installed next epoch
  rx.record(sech(2, 1), 10);
  EXPECT_EQ(rx.current_epoch(), 2u);
  EXPECT_TRUE(rx.admit(sech(1, 9), 1009));  // in flight: within the drain
  EXPECT_EQ(rx.admit(sech(1, 9), 1010).error(), SecureRefusal::kUnknownKey);
  rx.install(sa(3));
  EXPECT_TRUE(rx.admit(sech(3, 1), 1010));
}

TEST(SecureReceiverTest, TheNeverDrainsMutantKeepsThePreviousEpoch) {
  SecureParameters p;
  p.key_drain_ns = 1000;
  p.drains_previous_epoch = false;
  SecureReceiver rx({sa(1), sa(2)}, p);
  rx.record(sech(2, 1), 0);
  EXPECT_TRUE(rx.admit(sech(1, 9), 1'000'000));
}

TEST(SecureReceiverTest, TheNoReplayCheckMutantAdmitsASeenPn) {
  SecureParameters p;
  p.checks_replay = false;
  SecureReceiver rx({sa(1)}, p);
  rx.record(sech(1, 4), 0);
  EXPECT_TRUE(rx.admit(sech(1, 4), 0));
}

}  // namespace
}  // namespace mr::transport::ext
