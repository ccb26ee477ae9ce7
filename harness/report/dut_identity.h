// File: dut_identity.h
//
// The DUT's identity as a reader wants it in index.html and summary.md: labelled lines of
// text, never raw JSON. The run records what the DUT said of itself (suite_runner: the
// capabilities' device, MAC, IPs and GIDs) or what a caller set; both shapes read well:
//   {"device": {"name": "rxe0", "kind": "verbs", "vendor": "Linux", "version": "6.1"},
//    "mac": "52:54:00:12:34:56", "ips": ["198.18.0.2"], "gids": [{"index": 1, ...}]}
//   -> DUT "rxe0 (verbs), Linux 6.1", MAC "52:54:00:12:34:56", IPs "198.18.0.2", GIDs ...
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace mr::report {

struct IdentityLine {
  std::string label;  // "DUT", "MAC", "IPs", "GIDs", or the member's own name
  std::string text;
};

std::vector<IdentityLine> dut_identity(const nlohmann::ordered_json& dut);

// One line for summary.md: "rxe0 (verbs), Linux 6.1 · MAC ... · IPs ...".
std::string dut_identity_line(const nlohmann::ordered_json& dut);

}  // namespace mr::report
