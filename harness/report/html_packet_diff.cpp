// File: html_packet_diff.cpp
//
// Expected vs actual for one failure: both packets decoded (decode --json shape), one row
// per field ("BTH.psn"), differing rows highlighted, the failure's own field in bold. A
// field the expected packet leaves out is a don't-care and shown as "any".
#include <algorithm>
#include <utility>
#include <vector>

#include "harness/report/escape.h"
#include "harness/report/format.h"
#include "harness/report/html_parts.h"

namespace mr::report::html {
namespace {

using Json = nlohmann::ordered_json;
using Fields = std::vector<std::pair<std::string, const Json*>>;

// Capture bookkeeping, not packet content: it always differs and says nothing.
bool bookkeeping(std::string_view key) {
  return key == "frame" || key == "time" || key == "time_ns";
}

void flatten(const Json& j, const std::string& prefix, Fields& out) {
  if (j.is_object()) {
    for (const auto& [key, value] : j.items()) {
      if (prefix.empty() && bookkeeping(key)) continue;
      std::string name = prefix;
      if (!name.empty()) name += ".";
      name += key;
      flatten(value, name, out);
    }
    return;
  }
  out.emplace_back(prefix.empty() ? "(packet)" : prefix, &j);
}

const Json* lookup(const Fields& fields, const std::string& name) {
  for (const auto& [n, v] : fields) {
    if (n == name) return v;
  }
  return nullptr;
}

}  // namespace

void append_packet_diff(std::string& out, const Failure& f) {
  if (f.expected_packet.is_null() && f.actual_packet.is_null()) return;
  Fields expected, actual;
  flatten(f.expected_packet, "", expected);
  flatten(f.actual_packet, "", actual);
  // Rows in the actual packet's order (it is complete), then fields only the expected has.
  std::vector<std::string> names;
  for (const auto& [n, v] : actual) names.push_back(n);
  for (const auto& [n, v] : expected) {
    if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  }
  out +=
      "<details open><summary>Packets, field by field</summary>"
      "<table class=\"diff\"><thead><tr><th>Field</th><th>Expected</th><th>Actual</th>"
      "</tr></thead><tbody>\n";
  for (const std::string& name : names) {
    const Json* e = lookup(expected, name);
    const Json* a = lookup(actual, name);
    const bool differs = e != nullptr && (a == nullptr || *e != *a);
    std::string cls = differs ? "differs" : "";
    if (name == f.field) cls += cls.empty() ? "focus" : " focus";
    out += "<tr" + (cls.empty() ? std::string() : " class=\"" + cls + "\"") +
           "><td class=\"mono\">" + text_escape(name) + "</td>";
    out += e != nullptr ? "<td class=\"v\">" + text_escape(format_value(*e)) + "</td>"
                        : std::string("<td class=\"any\">any</td>");
    out += a != nullptr ? "<td class=\"v\">" + text_escape(format_value(*a)) + "</td>"
                        : std::string("<td class=\"any\">absent</td>");
    out += "</tr>\n";
  }
  out += "</tbody></table></details>\n";
}

}  // namespace mr::report::html
