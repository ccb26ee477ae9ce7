#include "reference/transport/ext/secure_transmitter.h"

#include <gtest/gtest.h>

namespace mr::transport::ext {
namespace {

SecurityAssociation sa(uint16_t epoch) {
  SecurityAssociation s;
  s.epoch = epoch;
  s.key.fill(static_cast<uint8_t>(epoch));
  s.spi = 0x100U + epoch;
  return s;
}

TEST(SecureTransmitterTest, PnsStartAtOneAndRiseByOnePerPacket) {
  SecureTransmitter tx({sa(1)}, {});
  for (uint64_t pn = 1; pn <= 5; ++pn) {
    auto k = tx.next();
    ASSERT_TRUE(k);
    EXPECT_EQ(k->sech.pn, pn);
    EXPECT_EQ(k->sech.epoch, 1u);
    EXPECT_EQ(k->sech.spi, 0x101u);
    EXPECT_EQ(k->sech.ver, 1u);
    EXPECT_EQ(k->sech.suite, 1u);
  }
}

TEST(SecureTransmitterTest, RotatesOnRequestOnlyOnceTheNextKeyIsInstalled) {
  SecureTransmitter tx({sa(1)}, {});
  tx.next();
  tx.request_rotation();
  EXPECT_EQ(tx.next()->sech.epoch, 1u);  // no key for epoch 2 yet
  tx.install(sa(2));
  const auto k = tx.next();
  EXPECT_EQ(k->sech.epoch, 2u);
  EXPECT_EQ(k->sech.pn, 1u);
  EXPECT_EQ(k->sech.spi, 0x102u);
}

TEST(SecureTransmitterTest, SendsNothingPastTheRekeyLimitWithoutTheNextKey) {
  SecureParameters p;
  p.rekey_packets = 16;
  SecureTransmitter tx({sa(7)}, p);
  for (int i = 0; i < 16; ++i) ASSERT_TRUE(tx.next());
  EXPECT_FALSE(tx.next());
  tx.install(sa(8));
  const auto k = tx.next();
  ASSERT_TRUE(k);
  EXPECT_EQ(k->sech.epoch, 8u);
  EXPECT_EQ(k->sech.pn, 1u);
}

TEST(SecureTransmitterTest, TheEpochWrapsModulo65536) {
  SecureTransmitter tx({sa(0xffff), sa(0)}, {});
  EXPECT_EQ(tx.next()->sech.epoch, 0xffffu);
  tx.request_rotation();
  EXPECT_EQ(tx.next()->sech.epoch, 0u);
}

TEST(SecureTransmitterTest, MutantsReusePnsOrIgnoreTheRotationRequest) {
  SecureParameters reuse;
  reuse.new_pn_per_packet = false;
  SecureTransmitter a({sa(1)}, reuse);
  EXPECT_EQ(a.next()->sech.pn, 1u);
  EXPECT_EQ(a.next()->sech.pn, 1u);
  SecureParameters deaf;
  deaf.rotates_on_request = false;
  SecureTransmitter b({sa(1), sa(2)}, deaf);
  b.request_rotation();
  EXPECT_EQ(b.next()->sech.epoch, 1u);
}

}  // namespace
}  // namespace mr::transport::ext
