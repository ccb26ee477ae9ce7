// The sessions' side of the tools' TCP exchanges, without a guest: a scripted "tool" on the
// other end of a socket pair, the reference on an in-memory link nobody answers. Checks the
// order and sizes of what the reference writes, and that a malformed message from the tool
// stops the session with an error naming the field.
#include <gtest/gtest.h>
#include <sys/socket.h>

#include <string>
#include <thread>

#include "harness/agent/socket_io.h"
#include "harness/peer/perftest_exchange.h"
#include "harness/peer/perftest_session.h"
#include "harness/peer/pingpong_exchange.h"
#include "harness/peer/pingpong_session.h"
#include "reference/io/clock.h"
#include "reference/io/memory_link.h"

namespace mr::peer {
namespace {

struct Pair {
  ControlSocket reference;
  ControlSocket tool;
};

Pair socket_pair() {
  int fds[2] = {-1, -1};
  EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds), 0);
  return {ControlSocket::adopt(agent::UniqueFd(fds[0])),
          ControlSocket::adopt(agent::UniqueFd(fds[1]))};
}

class SessionTest : public ::testing::Test {
 protected:
  io::SystemClock clock_;
  io::MemoryLinkPair link_{clock_};
};

TEST_F(SessionTest, PingpongServerRejectsAMalformedPsnAndNamesIt) {
  Pair pair = socket_pair();
  ControlSocket& reference = pair.reference;
  ControlSocket& tool = pair.tool;
  std::string bad = std::string("0000:000011:zzzzzz:00000000000000000000ffffc6120002") + '\0';
  ASSERT_TRUE(tool.write_all(bad, 1000, "test message"));
  auto r =
      run_pingpong_session(link_.b(), reference,
                           {.role = Role::kServer, .size = 64, .iters = 2, .timeout_ms = 2000}, {});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("field psn"), std::string::npos) << r.error();
}

TEST_F(SessionTest, PingpongClientWritesItsMessageThenDone) {
  Pair pair = socket_pair();
  ControlSocket& reference = pair.reference;
  ControlSocket& tool = pair.tool;
  std::thread session([&] {
    // Nobody answers RoCE on the in-memory link: the traffic times out, the exchange is what
    // this test checks.
    (void)run_pingpong_session(link_.b(), reference,
                               {.role = Role::kClient, .size = 64, .iters = 1, .timeout_ms = 500},
                               {});
  });
  auto ours = tool.read_exact(kPingpongMessageSize, 5000, "reference message");
  ASSERT_TRUE(ours) << ours.error();
  auto parsed = parse_pingpong_message(*ours);
  ASSERT_TRUE(parsed) << parsed.error();
  EXPECT_EQ(parsed->gid.to_string(), "::ffff:198.18.0.1");
  const PingpongDest me{.lid = 0, .qpn = 0x11, .psn = 0x22, .gid = parsed->gid};
  ASSERT_TRUE(tool.write_all(format_pingpong_message(me), 1000, "tool message"));
  auto done = tool.read_exact(kPingpongDone.size(), 5000, "done");
  ASSERT_TRUE(done) << done.error();
  EXPECT_EQ(*done, kPingpongDone);
  session.join();
}

TEST_F(SessionTest, PerftestServerRefusesAnOldVersionAndAMalformedKey) {
  {
    Pair pair = socket_pair();
    ControlSocket& reference = pair.reference;
    ControlSocket& tool = pair.tool;
    ASSERT_TRUE(tool.write_all(format_perftest_version("5.60"), 1000, "version"));
    auto r = run_perftest_session(link_.b(), reference,
                                  {.tool = PerftestTool::kWriteBw,
                                   .role = Role::kServer,
                                   .size = 64,
                                   .iters = 2,
                                   .timeout_ms = 2000},
                                  {});
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().find("older than 5.70"), std::string::npos) << r.error();
  }
  Pair pair = socket_pair();
  ControlSocket& reference = pair.reference;
  ControlSocket& tool = pair.tool;
  std::thread fake_tool([&] {
    // The client's side of perftest's exchange, as ib_write_bw writes it, with a bad rkey.
    const std::string steps[] = {format_perftest_version("6.06"), format_perftest_int(4096),
                                 format_perftest_int(64), format_perftest_mtu(1024)};
    for (const auto& step : steps) {
      ASSERT_TRUE(tool.write_all(step, 1000, "step"));
      auto answer = tool.read_exact(step.size(), 5000, "answer");
      ASSERT_TRUE(answer) << answer.error();
    }
    std::string keys = std::string(
                           "0000:0010:000012:345678:1234abcX:000055d0c0a01000:"
                           "00:00:00:00:00:00:00:00:00:00:ff:ff:c6:12:00:02:00000000:") +
                       '\0';
    ASSERT_TRUE(tool.write_all(keys, 1000, "keys"));
  });
  auto r = run_perftest_session(link_.b(), reference,
                                {.tool = PerftestTool::kWriteBw,
                                 .role = Role::kServer,
                                 .size = 64,
                                 .iters = 2,
                                 .timeout_ms = 2000},
                                {});
  fake_tool.join();
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("ib_write_bw: perftest keys: field rkey"), std::string::npos)
      << r.error();
}

}  // namespace
}  // namespace mr::peer
