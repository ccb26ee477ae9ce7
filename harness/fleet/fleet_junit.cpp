// File: fleet_junit.cpp
//
// DIR/junit.xml of a collected fleet: one <testsuite> per node, one <testcase> per test
// (classname NODE.AREA), verdicts mapped as harness/report's junit.xml maps them (fail:
// <failure>, error: <error>, inconc, not-applicable, none: <skipped>). A node without a
// report gets one test case "task" with an <error> naming why (never ran, killed, no
// result): a CI reader must never see such a node as green.
#include <array>
#include <cstdio>

#include "harness/fleet/fleet_result.h"
#include "harness/report/escape.h"

namespace mr::fleet {
namespace {

using report::attr_escape;

std::string seconds(double s) {
  std::array<char, 32> text{};
  std::snprintf(text.data(), text.size(), "%.3f", s);
  return text.data();
}

struct SuiteCounts {
  int tests = 0, failures = 0, errors = 0, skipped = 0;
};

std::string testcase(const std::string& node, const TestOutcome& t, SuiteCounts& c) {
  ++c.tests;
  std::string out = "    <testcase classname=\"" + attr_escape(node + "." + t.area) + "\" name=\"" +
                    attr_escape(t.tp_id) + "\" time=\"" + seconds(t.duration_s) + "\">\n";
  const std::string reason =
      t.reason.empty() ? std::string(report::to_string(t.verdict)) : t.reason;
  switch (t.verdict) {
    case Verdict::kPass:
      break;
    case Verdict::kFail:
      ++c.failures;
      out += "      <failure message=\"" + attr_escape(reason) + "\" type=\"fail\"/>\n";
      break;
    case Verdict::kError:
      ++c.errors;
      out += "      <error message=\"" + attr_escape(reason) + "\" type=\"error\"/>\n";
      break;
    default:
      ++c.skipped;
      out += "      <skipped message=\"" +
             attr_escape(std::string(report::to_string(t.verdict)) + ": " + reason) + "\"/>\n";
      break;
  }
  return out + "    </testcase>\n";
}

}  // namespace

std::string render_fleet_junit(const FleetResult& f) {
  std::string suites;
  SuiteCounts all;
  for (const NodeResult& n : f.nodes) {
    SuiteCounts c;
    std::string cases;
    if (n.tests.empty() || !n.reason.empty()) {
      // The node as a whole: why it has no (trustworthy) result.
      TestOutcome task{"task", "fleet", n.verdict, {}, n.reason, 0};
      if (task.verdict == Verdict::kInconc || task.verdict == Verdict::kNone) {
        task.verdict = Verdict::kError;
        task.reason = std::string(report::to_string(n.verdict)) + ": " + n.reason;
      }
      cases += testcase(n.planned.name, task, c);
    }
    for (const TestOutcome& t : n.tests) cases += testcase(n.planned.name, t, c);
    const std::string host = n.status ? n.status->host : "";
    suites += "  <testsuite name=\"" + attr_escape(n.planned.name) + "\" tests=\"" +
              std::to_string(c.tests) + "\" failures=\"" + std::to_string(c.failures) +
              "\" errors=\"" + std::to_string(c.errors) + "\" skipped=\"" +
              std::to_string(c.skipped) + "\" hostname=\"" + attr_escape(host) + "\">\n" + cases +
              "  </testsuite>\n";
    all.tests += c.tests;
    all.failures += c.failures;
    all.errors += c.errors;
    all.skipped += c.skipped;
  }
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"" +
         attr_escape("metaroce fleet " + f.name) + "\" tests=\"" + std::to_string(all.tests) +
         "\" failures=\"" + std::to_string(all.failures) + "\" errors=\"" +
         std::to_string(all.errors) + "\" skipped=\"" + std::to_string(all.skipped) + "\">\n" +
         suites + "</testsuites>\n";
}

}  // namespace mr::fleet
