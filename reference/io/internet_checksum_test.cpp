#include "reference/io/internet_checksum.h"

#include <gtest/gtest.h>

#include <vector>

namespace mr::io {
namespace {

TEST(InternetChecksum, Rfc1071Example) {
  // RFC 1071 section 3: the words 0001 f203 f4f5 f6f7 sum to ddf2 (before complement).
  const std::vector<uint8_t> bytes = {0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7};
  EXPECT_EQ(internet_checksum(bytes), static_cast<uint16_t>(~0xddf2));
}

TEST(InternetChecksum, OddLengthPadsWithZero) {
  const std::vector<uint8_t> odd = {0x12, 0x34, 0x56};
  const std::vector<uint8_t> even = {0x12, 0x34, 0x56, 0x00};
  EXPECT_EQ(internet_checksum(odd), internet_checksum(even));
}

TEST(InternetChecksum, AMessageWithItsChecksumSumsToZero) {
  std::vector<uint8_t> m(1500);
  for (size_t i = 0; i < m.size(); ++i) m[i] = static_cast<uint8_t>(i * 7 + 3);
  m[2] = m[3] = 0;
  const uint16_t sum = internet_checksum(m);
  m[2] = static_cast<uint8_t>(sum >> 8);
  m[3] = static_cast<uint8_t>(sum);
  EXPECT_EQ(internet_checksum(m), 0);
}

}  // namespace
}  // namespace mr::io
