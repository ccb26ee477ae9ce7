#include "harness/engine/byte_difference.h"

#include <algorithm>

#include "harness/protocol/dut_client.h"

namespace mr::engine {

std::optional<ByteDifference> first_difference(std::span<const uint8_t> expected,
                                               std::span<const uint8_t> actual, size_t window) {
  const size_t n = std::min(expected.size(), actual.size());
  const auto first = static_cast<size_t>(
      std::mismatch(expected.begin(), expected.begin() + static_cast<std::ptrdiff_t>(n),
                    actual.begin())
          .first -
      expected.begin());
  if (first == n && expected.size() == actual.size()) return std::nullopt;
  ByteDifference d;
  d.first = first;
  d.differing = std::max(expected.size(), actual.size()) - n;
  for (size_t i = first; i < n; ++i) d.differing += expected[i] != actual[i] ? 1 : 0;
  auto from_first = [&](std::span<const uint8_t> b) {
    const size_t from = std::min(first, b.size());
    const auto shown = b.subspan(from, std::min(window, b.size() - from));
    return shown.empty() ? std::string("(ends at byte ") + std::to_string(b.size()) + ")"
                         : protocol::to_hex(shown);
  };
  d.expected = from_first(expected);
  d.actual = from_first(actual);
  return d;
}

std::string ByteDifference::summary(size_t expected_size) const {
  return "from byte " + std::to_string(first) + ": " + std::to_string(differing) + " of " +
         std::to_string(expected_size) + " bytes differ; bytes from there shown";
}

}  // namespace mr::engine
