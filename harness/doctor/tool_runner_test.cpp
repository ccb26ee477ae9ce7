// Running external tools: bounded, and a missing program is an answer, not an error.
#include "harness/doctor/tool_runner.h"

#include <gtest/gtest.h>

namespace mr::doctor {
namespace {

TEST(ToolRunner, MissingProgramIsAbsent) {
  const ToolProbe p = probe(system_tool_runner(), {"no-such-tool-metaroce", "-k", "eth0"});
  EXPECT_EQ(p.status, ToolStatus::kAbsent);
  EXPECT_EQ(p.command, "no-such-tool-metaroce -k eth0");
}

TEST(ToolRunner, OutputAndFailure) {
  const ToolProbe ok = probe(system_tool_runner(), {"echo", "prio-pfc", "3:on"});
  EXPECT_EQ(ok.status, ToolStatus::kOk);
  EXPECT_EQ(ok.text, "prio-pfc 3:on\n");
  const ToolProbe failed = probe(system_tool_runner(), {"false"});
  EXPECT_EQ(failed.status, ToolStatus::kFailed);
  EXPECT_EQ(failed.text, "exit 1");
}

TEST(ToolRunner, SlowProgramIsKilledInTime) {
  const ToolProbe p = probe(system_tool_runner(200), {"sleep", "5"});
  EXPECT_EQ(p.status, ToolStatus::kFailed);
  EXPECT_NE(p.text.find("killed after 200 ms"), std::string::npos);
}

TEST(ToolRunner, NoRunnerMeansNotRun) {
  EXPECT_EQ(probe(ToolRunner{}, {"dcb"}).status, ToolStatus::kNotRun);
}

}  // namespace
}  // namespace mr::doctor
