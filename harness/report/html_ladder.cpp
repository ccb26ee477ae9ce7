// File: html_ladder.cpp
//
// The exchange of one test as a ladder diagram in HTML and CSS: the tester's lifeline on the
// left, the DUT's on the right, one row per packet with its number, time (ms since the start
// of the test), summary on an arrow, and the script line that injected or matched it. A
// packet no script line matched has a dashed red arrow; a packet a failure is about
// (Failure::packet) is highlighted and names the failing fields. Long exchanges stay readable: the
// whole ladder is a <details> (open up to kOpenLimit packets) and is cut into chunks of
// kChunk packets, each its own <details>.
#include <algorithm>

#include "harness/report/escape.h"
#include "harness/report/format.h"
#include "harness/report/html_parts.h"

namespace mr::report::html {
namespace {

constexpr size_t kOpenLimit = 60;
constexpr size_t kChunk = 250;

// The failures that name packet `number` (1-based): their fields, "BTH.psn, AETH.msn".
std::string failing_fields(const TestResult& t, size_t number) {
  std::string fields;
  for (const Failure& f : t.failures) {
    if (f.packet == number) fields += (fields.empty() ? "" : ", ") + f.field;
  }
  return fields;
}

void append_rows(std::string& out, const TestResult& t, size_t begin, size_t end) {
  out +=
      "<table class=\"ladder\"><thead><tr><th>#</th><th>ms</th><th class=\"lane\">Tester</th>"
      "<th></th><th class=\"lane\">DUT</th><th>script</th></tr></thead><tbody>\n";
  for (size_t i = begin; i < end; ++i) {
    const PacketRecord& p = t.packets[i];
    std::string cls = p.from_tester ? "to-dut" : "to-tester";
    if (p.script_ref.empty()) cls += " unmatched";
    const std::string failing = failing_fields(t, i + 1);
    if (!failing.empty()) cls += " failing";
    out += "<tr class=\"" + cls + "\"><td class=\"n\">" + std::to_string(i + 1) +
           "</td><td class=\"t\">" + format_time_ms(p.t_ns) +
           "</td><td class=\"lane tester\"></td><td class=\"msg\"><div class=\"arrow\">" +
           text_escape(p.summary) + "</div></td><td class=\"lane dut\"></td><td class=\"ref\">" +
           (p.script_ref.empty() ? std::string("unmatched") : text_escape(p.script_ref)) +
           (failing.empty() ? ""
                            : " <span class=\"fails\">fails: " + text_escape(failing) + "</span>") +
           "</td></tr>\n";
  }
  out += "</tbody></table>\n";
}

}  // namespace

void append_ladder(std::string& out, const TestResult& t) {
  const size_t n = t.packets.size();
  if (n == 0) {
    out += "<p class=\"empty\">No packets were exchanged.</p>\n";
    return;
  }
  out += std::string("<details class=\"exchange\"") + (n <= kOpenLimit ? " open" : "") +
         "><summary>Exchange: " + std::to_string(n) + " packet" + (n == 1 ? "" : "s") +
         "</summary>\n";
  if (n <= kChunk) {
    append_rows(out, t, 0, n);
  } else {
    for (size_t begin = 0; begin < n; begin += kChunk) {
      const size_t end = std::min(n, begin + kChunk);
      out += std::string("<details") + (begin == 0 ? " open" : "") + "><summary>Packets " +
             std::to_string(begin + 1) + "–" + std::to_string(end) + "</summary>\n";
      append_rows(out, t, begin, end);
      out += "</details>\n";
    }
  }
  out += "</details>\n";
}

}  // namespace mr::report::html
