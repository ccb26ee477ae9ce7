// LocalAgent against the real metaroce binary: started on a port of its own with a token of
// its own, answering the control protocol, refused with the agent's own reason, bounded when
// it never listens, and nothing left behind.
#include "harness/dut/local/local_agent.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "harness/dut/dut_control.h"

namespace mr::dut {
namespace {

std::string metaroce_binary() {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  return std::string(srcdir != nullptr ? srcdir : ".") + "/metaroce/harness/cli/metaroce";
}

std::string temp_folder() {
  const char* tmp = std::getenv("TEST_TMPDIR");
  return tmp != nullptr ? tmp : "/tmp";
}

bool process_exists(pid_t pid) { return kill(pid, 0) == 0 || errno != ESRCH; }

TEST(LocalAgent, ListensOnAPortOfItsOwnAndAnswersWithItsTokenThenLeavesNothing) {
  auto agent = LocalAgent::start({.binary = metaroce_binary(), .args = {"--backend", "reference"}});
  ASSERT_TRUE(agent) << agent.error();
  EXPECT_NE(agent->port(), 0);
  EXPECT_EQ(agent->token().size(), 32U);
  const pid_t pid = agent->pid();
  const auto folder = std::filesystem::path(agent->log_path()).parent_path();
  EXPECT_EQ(std::filesystem::status(folder).permissions() & std::filesystem::perms::all,
            std::filesystem::perms::owner_all);
  {
    auto control = DutControl::connect("127.0.0.1", agent->port(), agent->token());
    ASSERT_TRUE(control) << control.error().to_string();
    auto caps = typed_client(*control).capabilities();
    ASSERT_TRUE(caps) << caps.error().to_string();
  }
  // The agent serves one client at a time: the wrong token after the right one is done.
  auto wrong = DutControl::connect("127.0.0.1", agent->port(), "not-the-token");
  EXPECT_FALSE(wrong && typed_client(*wrong).capabilities());
  EXPECT_EQ(agent->stop(), "exit 0");  // SIGTERM: the agent ends cleanly
  EXPECT_FALSE(process_exists(pid));
  agent = Unexpected(std::string("released"));
  EXPECT_FALSE(std::filesystem::exists(folder)) << folder;
}

TEST(LocalAgent, AVerbsDeviceThatIsNotThereFailsWithTheAgentsOwnReason) {
  const std::string log = temp_folder() + "/missing-device-agent.log";
  auto agent = LocalAgent::start({.binary = metaroce_binary(),
                                  .args = {"--backend", "verbs", "--device", "mr-no-such-device"},
                                  .log_path = log});
  ASSERT_FALSE(agent);
  EXPECT_NE(agent.error().find("before it listened"), std::string::npos) << agent.error();
  // Its own words: on a host without RDMA "no RDMA device found", else the device named.
  EXPECT_NE(agent.error().find("| metaroce agent: "), std::string::npos) << agent.error();
  EXPECT_TRUE(std::filesystem::exists(log)) << "a named log stays for the report";
}

TEST(LocalAgent, AnAgentThatNeverListensIsStoppedAtTheTimeout) {
  const std::string script = temp_folder() + "/silent-agent.sh";
  {
    std::ofstream out(script);
    out << "#!/bin/sh\necho starting\nexec sleep 60\n";
  }
  std::filesystem::permissions(script, std::filesystem::perms::owner_all);
  auto agent = LocalAgent::start({.binary = script, .start_timeout_ms = 300});
  ASSERT_FALSE(agent);
  EXPECT_NE(agent.error().find("not listening within 300 ms (stopped: signal 15)"),
            std::string::npos)
      << agent.error();
  EXPECT_NE(agent.error().find("| starting"), std::string::npos) << agent.error();
}

}  // namespace
}  // namespace mr::dut
