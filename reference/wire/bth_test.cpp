#include "reference/wire/bth.h"

#include <gtest/gtest.h>

#include <vector>

#include "reference/wire/header_parse.h"

namespace mr::wire {
namespace {

// opcode RC_SEND_ONLY, se=1 m=0 pad=3 tver=0, pkey ffff, fecn=0 becn=1, dqpn 0x000012,
// ackreq=1, psn 0x00abcd
constexpr uint8_t kBytes[] = {0x04, 0xb0, 0xff, 0xff, 0x40, 0x00,
                              0x00, 0x12, 0x80, 0x00, 0xab, 0xcd};

TEST(Bth, ParsesEveryField) {
  ByteReader r(kBytes);
  auto b = parse_header<Bth>(r);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->opcode, 0x04);
  EXPECT_EQ(b->solicited, 1);
  EXPECT_EQ(b->migreq, 0);
  EXPECT_EQ(b->padcount, 3);
  EXPECT_EQ(b->version, 0);
  EXPECT_EQ(b->pkey, 0xffff);
  EXPECT_EQ(b->fecn, 0);
  EXPECT_EQ(b->becn, 1);
  EXPECT_EQ(b->dqpn, 0x12U);
  EXPECT_EQ(b->ackreq, 1);
  EXPECT_EQ(b->resv7, 0);
  EXPECT_EQ(b->psn, 0xabcdU);
}

TEST(Bth, SerializesToTheSameBytes) {
  ByteReader r(kBytes);
  auto b = parse_header<Bth>(r);
  ASSERT_TRUE(b);
  std::vector<uint8_t> out;
  ByteWriter w(out);
  b->write(w);
  EXPECT_EQ(out, std::vector<uint8_t>(std::begin(kBytes), std::end(kBytes)));
}

TEST(Bth, EveryFieldRoundTripsAtItsMaximum) {
  Bth b;
  b.opcode = 0xff;
  b.solicited = 1;
  b.migreq = 1;
  b.padcount = 3;
  b.version = 0xf;
  b.pkey = 0xffff;
  b.fecn = 1;
  b.becn = 1;
  b.resv6 = 0x3f;
  b.dqpn = 0xffffff;
  b.ackreq = 1;
  b.resv7 = 0x7f;
  b.psn = 0xffffff;
  std::vector<uint8_t> out;
  ByteWriter w(out);
  b.write(w);
  EXPECT_EQ(out, std::vector<uint8_t>(12, 0xff));
  ByteReader r(out);
  auto back = parse_header<Bth>(r);
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, b);
}

TEST(Bth, PsnArithmeticWrapsAt24Bits) {
  Bth b;
  b.psn = 0xffffff;
  b.psn = b.psn + 1;
  EXPECT_EQ(b.psn, 0U);
}

TEST(Bth, TruncatedInputNamesTheHeader) {
  ByteReader r(std::span<const uint8_t>(kBytes).first(7), 42);
  auto b = parse_header<Bth>(r);
  ASSERT_FALSE(b);
  EXPECT_EQ(b.error().header, "BTH");
  EXPECT_EQ(b.error().offset, 42U);
  EXPECT_EQ(b.error().to_string(), "BTH at byte 42: needs 12 bytes, 7 remain");
}

}  // namespace
}  // namespace mr::wire
