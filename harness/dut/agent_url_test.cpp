// parse_agent_url: the one reader of "agent://HOST:PORT" for run, replay and doctor.
#include "harness/dut/agent_url.h"

#include <gtest/gtest.h>

#include <string>

namespace mr::dut {
namespace {

TEST(AgentUrl, GivesHostAndPort) {
  auto a = parse_agent_url("agent://198.18.0.2:7000");
  ASSERT_TRUE(a) << a.error();
  EXPECT_EQ(a->first, "198.18.0.2");
  EXPECT_EQ(a->second, 7000);
}

TEST(AgentUrl, TakesABracketedIpv6Host) {
  auto a = parse_agent_url("agent://[2001:db8::2]:7000");
  ASSERT_TRUE(a) << a.error();
  EXPECT_EQ(a->first, "2001:db8::2");
  EXPECT_EQ(a->second, 7000);
}

TEST(AgentUrl, ErrorsNameTheOptionAndTheProblem) {
  const struct {
    const char* url;
    const char* problem;
  } cases[] = {
      {"198.18.0.2:7000", "not reference, rxe or agent://HOST:PORT"},
      {"agent://198.18.0.2", "expected HOST:PORT"},
      {"agent://:7000", "no host before the port"},
      {"agent://198.18.0.2:0", "the port must be 1..65535"},
      {"agent://198.18.0.2:70000", "bad port"},
      {"agent://198.18.0.2:7x", "bad port"},
  };
  for (const auto& c : cases) {
    auto a = parse_agent_url(c.url);
    ASSERT_FALSE(a) << c.url;
    EXPECT_EQ(a.error().rfind("--dut " + std::string(c.url) + ": ", 0), 0U) << a.error();
    EXPECT_NE(a.error().find(c.problem), std::string::npos) << a.error();
  }
}

}  // namespace
}  // namespace mr::dut
