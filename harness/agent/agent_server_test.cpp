#include "harness/agent/agent_server.h"

#include <gtest/gtest.h>

#include <random>
#include <thread>

#include "harness/agent/reference_backend.h"
#include "harness/agent/socket_io.h"
#include "reference/io/clock.h"
#include "reference/io/memory_link.h"

namespace mr::agent {
namespace {

constexpr const char* kToken = "correct horse battery staple";

// An agent on 127.0.0.1 on an ephemeral port, serving from a thread of its own.
class AgentServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = AgentServer::listen({.host = "127.0.0.1", .port = 0, .token = kToken, .tick_ms = 20},
                                 dispatcher);
    ASSERT_TRUE(s) << s.error();
    server.emplace(std::move(*s));
    ASSERT_NE(server->port(), 0);
    thread = std::thread([this] { server->serve(stop); });
  }
  void TearDown() override {
    stop = true;
    if (thread.joinable()) thread.join();
  }

  // A raw client: the test speaks the protocol by hand.
  struct Client {
    UniqueFd fd;
    LineReader reader{8 * kMaxLineBytes};
    void send(const std::string& data) const { ASSERT_TRUE(send_all(fd.get(), data, 5'000)); }
    LineReader::Status read(std::string& line, uint64_t timeout_ms = 5'000) {
      return reader.read_line(fd.get(), timeout_ms, line);
    }
    Json request(const std::string& line) {
      send(line + "\n");
      std::string reply;
      EXPECT_EQ(read(reply), LineReader::Status::kLine) << line;
      return Json::parse(reply, nullptr, false);
    }
  };
  Client connect() {
    auto fd = connect_tcp("127.0.0.1", server->port(), 5'000);
    EXPECT_TRUE(fd) << (fd ? "" : fd.error());
    return Client{std::move(*fd)};
  }
  Client hello() {
    Client c = connect();
    const Json r =
        c.request(std::string(R"({"id":1,"op":"hello","protocol":1,"token":")") + kToken + "\"}");
    EXPECT_EQ(r["ok"], true) << r;
    EXPECT_EQ(r["protocol"], 1);
    return c;
  }

  io::VirtualClock clock;
  io::MemoryLinkPair pair{clock};
  ReferenceBackend backend{pair.b(),
                           clock,
                           {.mac = {{2, 0, 0, 0, 0, 2}},
                            .ipv4 = {{198, 18, 0, 2}},
                            .ipv6_global = {},
                            .seed = 3,
                            .mutants = {}}};
  RequestDispatcher dispatcher{backend, "reference"};
  std::optional<AgentServer> server;
  std::atomic<bool> stop{false};
  std::thread thread;
};

TEST_F(AgentServerTest, RightTokenIsServedInOrder) {
  Client c = hello();
  EXPECT_EQ(c.request(R"({"id":2,"op":"create_pd"})")["pd"], 1);
  c.send("{\"id\":3,\"op\":\"create_pd\"}\n\n{\"id\":4,\"op\":\"create_cq\",\"depth\":8}\r\n");
  std::string line;
  ASSERT_EQ(c.read(line), LineReader::Status::kLine);
  EXPECT_EQ(Json::parse(line)["id"], 3);
  ASSERT_EQ(c.read(line), LineReader::Status::kLine);
  EXPECT_EQ(Json::parse(line)["id"], 4);
  EXPECT_EQ(Json::parse(line)["cq"], 1);
}

TEST_F(AgentServerTest, WrongTokenGetsNothingAndTheConnectionCloses) {
  for (const std::string first : {
           R"({"id":1,"op":"hello","protocol":1,"token":"guess"})",
           R"({"id":1,"op":"hello","protocol":1})",
           R"({"id":1,"op":"create_pd","token":"correct horse battery staple"})",
           R"({"id":1,"op":"hello","protocol":1,"token":"correct horse battery stapl"})",
           "garbage",
       }) {
    Client c = connect();
    c.send(first + "\n");
    std::string line;
    EXPECT_EQ(c.read(line, 3'000), LineReader::Status::kClosed) << first << " got: " << line;
  }
  // The agent still serves the next, honest client.
  Client ok = hello();
  EXPECT_EQ(ok.request(R"({"id":2,"op":"counters"})")["ok"], true);
}

TEST_F(AgentServerTest, OversizeLineGetsAnErrorThenClose) {
  Client c = hello();
  c.send(std::string(kMaxLineBytes + 10, 'a'));
  std::string line;
  ASSERT_EQ(c.read(line), LineReader::Status::kLine);
  const Json r = Json::parse(line);
  EXPECT_EQ(r["ok"], false);
  EXPECT_TRUE(r["id"].is_null()) << r;  // the line was not read, so neither was its id
  EXPECT_EQ(r["error"]["code"], "EPROTO");
  EXPECT_EQ(c.read(line), LineReader::Status::kClosed);
}

TEST_F(AgentServerTest, ByeIsAnsweredThenClosed) {
  Client c = hello();
  const Json r = c.request(R"({"id":9,"op":"bye"})");
  EXPECT_EQ(r["ok"], true);
  EXPECT_EQ(r["id"], 9);
  std::string line;
  EXPECT_EQ(c.read(line), LineReader::Status::kClosed);
}

TEST_F(AgentServerTest, HelloWithWrongProtocolIsRefusedThenClosed) {
  Client c = connect();
  const Json r =
      c.request(std::string(R"({"id":1,"op":"hello","protocol":7,"token":")") + kToken + "\"}");
  EXPECT_EQ(r["error"]["code"], "ENOTSUP");
  EXPECT_EQ(r["error"]["field"], "protocol");
  std::string line;
  EXPECT_EQ(c.read(line), LineReader::Status::kClosed);
}

TEST_F(AgentServerTest, HelloWithoutProtocolIsRefusedThenClosed) {
  Client c = connect();
  const Json r = c.request(std::string(R"({"id":1,"op":"hello","token":")") + kToken + "\"}");
  EXPECT_EQ(r["error"]["code"], "EINVAL");
  EXPECT_EQ(r["error"]["field"], "protocol");
  std::string line;
  EXPECT_EQ(c.read(line), LineReader::Status::kClosed);
}

TEST_F(AgentServerTest, ASecondHelloIsRefusedAndTheConnectionStaysOpen) {
  Client c = hello();
  const Json r = c.request(R"({"id":2,"op":"hello","protocol":1,"token":"guess"})");
  EXPECT_EQ(r["id"], 2);
  EXPECT_EQ(r["error"]["code"], "EPROTO");
  EXPECT_EQ(c.request(R"({"id":3,"op":"create_pd"})")["pd"], 1);
}

TEST_F(AgentServerTest, RandomLinesEachGetAReplyAndServingGoesOn) {
  Client c = hello();
  std::mt19937_64 rng(7);
  for (int i = 0; i < 500; ++i) {
    std::string line(1 + rng() % 300, 'x');
    for (char& ch : line) {
      do {
        ch = static_cast<char>(rng() % 256);
      } while (ch == '\n' || ch == '\r');
    }
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    const Json r = c.request(line);
    ASSERT_TRUE(r.is_object());
    ASSERT_EQ(r["ok"], false);
  }
  EXPECT_EQ(c.request(R"({"id":2,"op":"create_pd"})")["ok"], true);
}

TEST(SplitHostPort, AcceptsNamesV4AndBracketedV6) {
  auto a = split_host_port("198.18.0.2:7000");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->first, "198.18.0.2");
  EXPECT_EQ(a->second, 7000);
  auto b = split_host_port("[::1]:80");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->first, "::1");
  EXPECT_FALSE(split_host_port("nohost"));
  EXPECT_FALSE(split_host_port("h:70000"));
}

}  // namespace
}  // namespace mr::agent
