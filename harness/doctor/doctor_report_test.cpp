// The doctor report's JSON form (the agent's reply body) and its text rendering.
#include "harness/doctor/doctor_report.h"

#include <gtest/gtest.h>

namespace mr::doctor {
namespace {

DoctorReport sample() {
  DoctorReport r;
  r.findings.push_back({Severity::kOk, "port.state", "rxe0 port 1", "ACTIVE, LinkUp", ""});
  r.findings.push_back({Severity::kWarning, "pfc", "eth0", "PFC not visible", "dcb ..."});
  r.findings.push_back(
      {Severity::kError, "mtu.match", "rxe0 port 1", "too big", "ip link set eth0 mtu 4160"});
  r.facts = {{"root", "/"}, {"devices", Json::array({{{"name", "rxe0"}}})}};
  return r;
}

TEST(DoctorReport, JsonRoundTripIsExact) {
  const DoctorReport r = sample();
  const Json j = to_json(r);
  EXPECT_EQ(j["findings"][2]["severity"], "error");
  EXPECT_EQ(j["findings"][0]["check"], "port.state");
  auto back = report_from_json(Json::parse(j.dump()));
  ASSERT_TRUE(back) << back.error();
  EXPECT_EQ(*back, r);
}

TEST(DoctorReport, WorstFindingDecides) {
  DoctorReport r = sample();
  EXPECT_TRUE(r.has_error());
  r.findings.pop_back();
  EXPECT_EQ(r.worst(), Severity::kWarning);
  EXPECT_EQ(DoctorReport{}.worst(), Severity::kOk);
}

TEST(DoctorReport, MalformedJsonNamesTheField) {
  auto bad = report_from_json(Json::parse(R"({"findings":[{"severity":"fatal","check":"x"}]})"));
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error(), "findings[0].severity: must be ok, warning or error");
  auto no_list = report_from_json(Json::parse(R"({"facts":{}})"));
  ASSERT_FALSE(no_list);
  EXPECT_EQ(no_list.error(), "findings: must be an array");
  auto no_check = report_from_json(Json::parse(R"({"findings":[{"severity":"ok"}]})"));
  ASSERT_FALSE(no_check);
  EXPECT_EQ(no_check.error(), "findings[0].check: is required");
}

TEST(DoctorReport, TextHasOneLinePerFindingAndASummary) {
  EXPECT_EQ(render_text(sample()),
            "[ok] rxe0 port 1: ACTIVE, LinkUp\n"
            "[warning] eth0: PFC not visible; fix: dcb ...\n"
            "[error] rxe0 port 1: too big; fix: ip link set eth0 mtu 4160\n"
            "1 error, 1 warning, 1 ok\n");
}

TEST(DoctorReport, TextFromAnAgentCannotDriveTheTerminal) {
  DoctorReport r;
  r.findings.push_back({Severity::kOk, "x", "", "a\x1b[2Jb\nc", ""});
  EXPECT_EQ(render_text(r), "[ok] a?[2Jb?c\n0 errors, 0 warnings, 1 ok\n");
}

}  // namespace
}  // namespace mr::doctor
