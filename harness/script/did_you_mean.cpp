#include "harness/script/did_you_mean.h"

#include <algorithm>
#include <vector>

namespace mr::script {
namespace {

// Levenshtein distance, two rows: the names are short.
size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1);
  std::vector<size_t> cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1])});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

}  // namespace

std::string did_you_mean(std::string_view word, std::span<const std::string_view> known) {
  std::string_view best;
  size_t best_distance = 3;  // more than two edits away is not a typo
  for (std::string_view k : known) {
    const size_t d = edit_distance(word, k);
    if (d < best_distance) {
      best_distance = d;
      best = k;
    }
  }
  return best.empty() ? "" : " (did you mean '" + std::string(best) + "'?)";
}

std::string joined(std::span<const std::string_view> names) {
  std::string out;
  for (std::string_view n : names) {
    if (!out.empty()) out += ", ";
    out += n;
  }
  return out;
}

}  // namespace mr::script
