#include "harness/doctor/qos_parse.h"

#include <charconv>
#include <sstream>

namespace mr::doctor {
namespace {

std::optional<uint32_t> number(std::string_view s) {
  uint32_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

// RFC 2474 class selectors CSn = 8n, RFC 2597 AFxy = 8x + 2y, RFC 3246 EF = 46.
std::optional<uint32_t> dscp_value(std::string_view s) {
  if (auto n = number(s)) return n;
  if (s == "EF") return 46;
  if (s.size() == 3 && s.starts_with("CS") && s[2] >= '0' && s[2] <= '7') {
    return static_cast<uint32_t>(s[2] - '0') * 8;
  }
  if (s.size() == 4 && s.starts_with("AF") && s[2] >= '1' && s[2] <= '4' && s[3] >= '1' &&
      s[3] <= '3') {
    return static_cast<uint32_t>(s[2] - '0') * 8 + static_cast<uint32_t>(s[3] - '0') * 2;
  }
  return std::nullopt;
}

// The words after `key` on every line that starts with it.
std::vector<std::string> words_after(std::string_view text, std::string_view key, bool& found) {
  std::vector<std::string> words;
  std::istringstream lines{std::string(text)};
  for (std::string line; std::getline(lines, line);) {
    std::istringstream in(line);
    std::string first;
    if (!(in >> first) || first != key) continue;
    found = true;
    for (std::string w; in >> w;) words.push_back(w);
  }
  return words;
}

}  // namespace

std::optional<std::vector<uint32_t>> parse_pfc_priorities(std::string_view text) {
  bool found = false;
  const auto words = words_after(text, "prio-pfc", found);
  if (!found) return std::nullopt;
  std::vector<uint32_t> on;
  for (const auto& w : words) {
    const auto colon = w.find(':');
    if (colon == std::string::npos) continue;
    auto prio = number(std::string_view(w).substr(0, colon));
    if (prio && w.substr(colon + 1) == "on") on.push_back(*prio);
  }
  return on;
}

std::map<uint32_t, uint32_t> parse_dscp_prio(std::string_view text) {
  bool found = false;
  std::map<uint32_t, uint32_t> map;
  for (const auto& w : words_after(text, "dscp-prio", found)) {
    const auto colon = w.find(':');
    if (colon == std::string::npos) continue;
    auto dscp = dscp_value(std::string_view(w).substr(0, colon));
    auto prio = number(std::string_view(w).substr(colon + 1));
    if (dscp && prio && *dscp < 64) map[*dscp] = *prio;
  }
  return map;
}

std::map<std::string, std::string> parse_ethtool_features(std::string_view text) {
  std::map<std::string, std::string> features;
  std::istringstream lines{std::string(text)};
  for (std::string line; std::getline(lines, line);) {
    const auto colon = line.find(": ");
    const auto start = line.find_first_not_of(" \t");
    if (colon == std::string::npos || start == std::string::npos || start >= colon) continue;
    if (line.starts_with("Features for ")) continue;
    features[line.substr(start, colon - start)] = line.substr(colon + 2);
  }
  return features;
}

}  // namespace mr::doctor
