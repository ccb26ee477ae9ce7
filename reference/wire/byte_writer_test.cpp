#include "reference/wire/byte_writer.h"

#include <gtest/gtest.h>

#include <array>
#include <vector>

namespace mr::wire {
namespace {

TEST(ByteWriter, AppendsBigEndianToAVector) {
  std::vector<uint8_t> out = {0xaa};
  ByteWriter w(out);
  w.u8(1);
  w.u16(0x0203);
  w.u24(0x040506);
  w.u32(0x0708090a);
  w.u64(0x0b0c0d0e0f101112);
  w.zeros(2);
  EXPECT_EQ(w.size(), 21U);
  EXPECT_EQ(out, (std::vector<uint8_t>{0xaa, 1,    2,    3,    4,    5,    6,    7,    8, 9, 0x0a,
                                       0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x12, 0, 0}));
}

TEST(ByteWriter, FillsASpanFromItsStartAndCountsTheOffset) {
  std::array<uint8_t, 8> buffer{};
  buffer.fill(0xee);
  ByteWriter w{std::span(buffer)};
  w.u16(0x0102);
  const std::array<uint8_t, 2> two = {3, 4};
  w.bytes(two);
  w.zeros(1);
  EXPECT_EQ(w.size(), 5U);
  EXPECT_EQ(buffer, (std::array<uint8_t, 8>{1, 2, 3, 4, 0, 0xee, 0xee, 0xee}));
}

TEST(HeaderBytes, ComposesAHeaderThatAWriterStoresAtOnce) {
  HeaderBytes<6> b;
  b.u16(0x0102);
  b.u24(0x030405);
  EXPECT_EQ(std::vector<uint8_t>(b.written().begin(), b.written().end()),
            (std::vector<uint8_t>{1, 2, 3, 4, 5}));
  std::vector<uint8_t> out = {9};
  ByteWriter w(out);
  w.bytes(b.written());
  EXPECT_EQ(out, (std::vector<uint8_t>{9, 1, 2, 3, 4, 5}));
}

TEST(HeaderBytesDeathTest, StopsRatherThanWritePastItsSize) {
  EXPECT_DEATH(
      {
        HeaderBytes<3> b;
        b.u32(1);
      },
      "");
}

TEST(ByteWriterDeathTest, StopsRatherThanWritePastItsSpan) {
  std::array<uint8_t, 3> buffer{};
  EXPECT_DEATH(
      {
        ByteWriter w{std::span(buffer)};
        w.u32(1);
      },
      "1 bytes past a 3-byte buffer");
}

}  // namespace
}  // namespace mr::wire
