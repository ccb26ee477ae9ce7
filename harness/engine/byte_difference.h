// File: byte_difference.h
//
// Where two byte strings part: the first differing byte, how many differ, and a window of
// each from there. One rule for every comparison a failure reports (expect_mem, a packet's
// payload), so that a 1 MiB mismatch reads "differs from byte 40960", not two hex dumps.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace mr::engine {

struct ByteDifference {
  size_t first = 0;      // the first offset where they differ (or where the shorter ends)
  size_t differing = 0;  // bytes that differ, counting every byte past the shorter's end
  std::string expected;  // hex of up to `window` bytes of each, from `first`
  std::string actual;

  // "from byte 40: 3 of 64 bytes differ; 16 bytes from there shown"
  std::string summary(size_t expected_size) const;
};

// Nothing when the two are equal.
std::optional<ByteDifference> first_difference(std::span<const uint8_t> expected,
                                               std::span<const uint8_t> actual, size_t window = 16);

}  // namespace mr::engine
