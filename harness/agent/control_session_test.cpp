// The session's rules (docs/dut-control-protocol.md, "Session"), line by line: what the
// first line must be, what a failed handshake gets, and that a hello later is refused.
#include "harness/agent/control_session.h"

#include <gtest/gtest.h>

#include <string>

#include "harness/agent/reference_backend.h"
#include "harness/protocol/dut_client.h"
#include "reference/io/clock.h"
#include "reference/io/memory_link.h"

namespace mr::agent {
namespace {

constexpr const char* kToken = "correct horse battery staple";

std::string hello_line(int id, const std::string& token, const std::string& rest = "") {
  return R"({"id":)" + std::to_string(id) + R"(,"op":"hello","token":")" + token + "\"" + rest +
         "}";
}

class ControlSessionTest : public ::testing::Test {
 protected:
  // The step's reply as JSON (a test failure when there is none).
  static Json reply_of(const SessionStep& step) {
    EXPECT_TRUE(step.reply);
    return step.reply ? Json::parse(*step.reply) : Json::object();
  }
  // A session past a successful hello.
  ControlSession open_session() {
    ControlSession session(dispatcher, kToken);
    const SessionStep step = session.handle_line(hello_line(1, kToken, R"(,"protocol":1)"));
    EXPECT_EQ(reply_of(step)["ok"], true);
    EXPECT_FALSE(step.close);
    EXPECT_TRUE(session.authenticated());
    return session;
  }

  io::VirtualClock clock;
  io::MemoryLinkPair pair{clock};
  ReferenceBackend backend{pair.b(), clock,
                           ReferenceBackendOptions{.mac = {{2, 0, 0, 0, 0, 2}},
                                                   .ipv4 = {{198, 18, 0, 2}},
                                                   .ipv6_global = {},
                                                   .seed = 3,
                                                   .mutants = {}}};
  RequestDispatcher dispatcher{backend, "reference"};
};

TEST_F(ControlSessionTest, AFirstLineThatIsNoHelloWithTheRightTokenGetsNoReplyAndCloses) {
  for (const std::string& first : {
           hello_line(1, "guess", R"(,"protocol":1)"),
           std::string(R"({"id":1,"op":"hello","protocol":1})"),
           std::string(R"({"id":1,"op":"create_pd","token":"correct horse battery staple"})"),
           hello_line(1, "correct horse battery stapl", R"(,"protocol":1)"),
           std::string(R"({"id":1,"op":"hello","protocol":1,"token":["x"]})"),
           std::string("garbage"),
       }) {
    ControlSession session(dispatcher, kToken);
    const SessionStep step = session.handle_line(first);
    EXPECT_FALSE(step.reply) << first << " got " << *step.reply;
    EXPECT_TRUE(step.close) << first;
    EXPECT_FALSE(session.authenticated());
  }
}

TEST_F(ControlSessionTest, AMalformedHelloWithTheRightTokenIsRefusedNamingTheFieldThenCloses) {
  struct Case {
    std::string line;
    std::string code;
    std::string field;
  };
  for (const Case& c : {
           Case{hello_line(1, kToken), "EINVAL", "protocol"},  // no protocol at all
           Case{hello_line(1, kToken, R"(,"protocol":"one")"), "EINVAL", "protocol"},
           Case{hello_line(1, kToken, R"(,"protocol":1,"colour":"red")"), "EINVAL", "colour"},
           Case{hello_line(1, kToken, R"(,"protocol":1,"client":7)"), "EINVAL", "client"},
           Case{hello_line(1, kToken, R"(,"protocol":1,"protocol":1)"), "EINVAL", "protocol"},
           Case{hello_line(1, kToken, R"(,"protocol":2)"), "ENOTSUP", "protocol"},
       }) {
    ControlSession session(dispatcher, kToken);
    const SessionStep step = session.handle_line(c.line);
    const Json r = reply_of(step);
    EXPECT_EQ(r["id"], 1) << c.line;
    EXPECT_EQ(r["ok"], false) << c.line;
    EXPECT_EQ(r["error"]["code"], c.code) << c.line << " -> " << r;
    EXPECT_EQ(r["error"]["field"], c.field) << c.line << " -> " << r;
    EXPECT_TRUE(step.close) << c.line;
    EXPECT_FALSE(session.authenticated()) << c.line;
  }
}

TEST_F(ControlSessionTest, ASecondHelloIsRefusedWithEprotoWhateverItsTokenAndTheSessionGoesOn) {
  ControlSession session = open_session();
  for (const std::string& again : {
           hello_line(2, "guess", R"(,"protocol":1)"),
           hello_line(2, kToken, R"(,"protocol":1)"),
           hello_line(2, kToken),  // malformed as well: still the same refusal
           hello_line(2, kToken, R"(,"protocol":7)"),
       }) {
    const SessionStep step = session.handle_line(again);
    const Json r = reply_of(step);
    EXPECT_EQ(r["id"], 2) << again;
    EXPECT_EQ(r["ok"], false) << again;
    EXPECT_EQ(r["error"]["code"], "EPROTO") << again;
    EXPECT_EQ(r["error"]["field"], "op") << again;
    EXPECT_FALSE(step.close) << again;
  }
  const Json pd = reply_of(session.handle_line(R"({"id":3,"op":"create_pd"})"));
  EXPECT_EQ(pd["ok"], true) << pd;
  EXPECT_EQ(pd["pd"], 1);
}

TEST_F(ControlSessionTest, ADuplicatedOpRunsNeitherOp) {
  ControlSession session = open_session();
  EXPECT_EQ(reply_of(session.handle_line(R"({"id":2,"op":"create_pd"})"))["pd"], 1);
  const Json r = reply_of(session.handle_line(R"({"id":3,"op":"create_pd","op":"reset"})"));
  EXPECT_EQ(r["id"], 3);
  EXPECT_EQ(r["error"]["code"], "EINVAL");
  EXPECT_EQ(r["error"]["field"], "op");
  // No reset ran (it would number PDs from 1 again), and no PD was made.
  EXPECT_EQ(reply_of(session.handle_line(R"({"id":4,"op":"create_pd"})"))["pd"], 2);
}

TEST_F(ControlSessionTest, ALineTooLongGetsEprotoWithANullIdOnceAuthenticatedThenCloses) {
  ControlSession fresh(dispatcher, kToken);
  const SessionStep before = fresh.too_long_line();
  EXPECT_FALSE(before.reply);
  EXPECT_TRUE(before.close);

  ControlSession session = open_session();
  const SessionStep step = session.too_long_line();
  const Json r = reply_of(step);
  EXPECT_TRUE(r["id"].is_null()) << r;
  EXPECT_EQ(r["error"]["code"], "EPROTO");
  EXPECT_TRUE(step.close);
}

TEST_F(ControlSessionTest, ByeIsAnsweredThenCloses) {
  ControlSession session = open_session();
  const SessionStep step = session.handle_line(R"({"id":9,"op":"bye"})");
  EXPECT_EQ(reply_of(step)["ok"], true);
  EXPECT_TRUE(step.close);
}

// The typed client over a real session: the agent's refusals are error values.
TEST_F(ControlSessionTest, TheTypedClientGetsTheSessionsRefusalsAsErrorValues) {
  ControlSession session = open_session();
  uint64_t next_id = 2;
  protocol::SendRequest send = [&](protocol::Json request) -> protocol::Reply<protocol::Json> {
    request["id"] = next_id++;
    const SessionStep step = session.handle_line(request.dump());
    if (!step.reply) return control_error(ErrorCode::kEproto, "no reply");
    protocol::Json reply = protocol::Json::parse(*step.reply);
    if (reply["ok"] == true) return reply;
    const auto code = error_code_from_string(reply["error"]["code"].get<std::string>());
    return control_error(code.value_or(ErrorCode::kEproto), reply["error"]["message"],
                         reply["error"].value("field", ""));
  };
  protocol::DutClient client(send);
  auto cq = client.create_cq(0);
  ASSERT_FALSE(cq);
  EXPECT_EQ(cq.error().code, ErrorCode::kEinval);
  EXPECT_EQ(cq.error().field, "depth");
  auto qp = client.query_qp(12345);
  ASSERT_FALSE(qp);
  EXPECT_EQ(qp.error().code, ErrorCode::kEnoent);
  auto again = send({{"op", "hello"}, {"token", kToken}, {"protocol", 1}});
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code, ErrorCode::kEproto);
  EXPECT_TRUE(client.create_pd());
}

TEST(ConstantTimeEqual, ComparesWholeStrings) {
  EXPECT_TRUE(constant_time_equal("abc", "abc"));
  EXPECT_FALSE(constant_time_equal("abc", "abd"));
  EXPECT_FALSE(constant_time_equal("ab", "abc"));
  EXPECT_FALSE(constant_time_equal("abcd", "abc"));
  EXPECT_FALSE(constant_time_equal("", ""));
}

}  // namespace
}  // namespace mr::agent
