// The per-plane view of a test's exchange: what each plane and EV carried in each direction
// (Ext packets only), so that a black-holed plane, a silent EV or a lopsided spray shows at a
// glance beside the ladder, which shows only the first frames of driven traffic.
#include <algorithm>
#include <cstdio>
#include <string>
#include <tuple>
#include <vector>

#include "harness/report/html_parts.h"

namespace mr::report::html {

void append_paths(std::string& out, const TestResult& t) {
  if (t.paths.empty()) return;
  std::vector<PathTally> rows = t.paths;  // the DUT's first, then by plane and EV
  std::ranges::sort(rows, [](const PathTally& a, const PathTally& b) {
    return std::tie(a.from_tester, a.plane, a.ev) < std::tie(b.from_tester, b.plane, b.ev);
  });
  out += "<details class=\"paths\"><summary>Planes and EVs: " + std::to_string(rows.size()) +
         " path" + (rows.size() == 1 ? "" : "s") +
         "</summary>\n<table><thead><tr><th>sender</th><th>plane</th><th>EV</th>"
         "<th>packets</th><th>retransmissions</th><th>dropped by the harness</th></tr></thead>"
         "<tbody>\n";
  for (const PathTally& p : rows) {
    char ev[16];
    std::snprintf(ev, sizeof ev, "0x%04x", p.ev);
    out += std::string("<tr") + (p.dropped == p.packets && p.packets > 0 ? " class=\"dead\"" : "") +
           "><td>" + (p.from_tester ? "tester" : "DUT") + "</td><td>" + std::to_string(p.plane) +
           "</td><td>" + ev + "</td><td>" + std::to_string(p.packets) + "</td><td>" +
           std::to_string(p.retransmissions) + "</td><td>" + std::to_string(p.dropped) +
           "</td></tr>\n";
  }
  out += "</tbody></table></details>\n";
}

}  // namespace mr::report::html
