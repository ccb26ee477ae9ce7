#include "harness/dut/dut_control.h"

#include <gtest/gtest.h>

#include <thread>

#include "harness/agent/agent_server.h"
#include "harness/agent/reference_backend.h"
#include "harness/dut/embedded/embedded_reference_dut.h"
#include "harness/dut/testing/canned_reply_transport.h"
#include "harness/dut/testing/tester_peer.h"

namespace mr::dut {
namespace {

using testing::DutCall;

constexpr const char* kDutMac = "02:00:00:00:00:02";
constexpr const char* kDutIp = "198.18.0.2";

// The DUT's end, set up through the protocol: a 4 KiB region for the receive buffer, one CQ
// and one RC QP, moved to RTR towards the tester's QP (it only answers: no RTS).
struct DutEnd {
  uint32_t cq = 0;
  uint32_t qpn = 0;
  uint32_t lkey = 0;
  uint64_t va = 0;
};

DutEnd create_dut_end(const DutCall& call_dut) {
  DutEnd end;
  const uint32_t pd = call_dut("create_pd", Json::object())["pd"];
  const Json mr = call_dut("reg_mr", {{"pd", pd}, {"length", 4096}, {"access", {"LOCAL_WRITE"}}});
  end.lkey = mr.value("lkey", 0U);
  end.va = mr.value("va", uint64_t{0});
  end.cq = call_dut("create_cq", {{"depth", 16}})["cq"];
  end.qpn = call_dut("create_qp",
                     {{"pd", pd}, {"send_cq", end.cq}, {"recv_cq", end.cq}, {"type", "RC"}})["qpn"];
  return end;
}

void connect_dut_end(const DutCall& call_dut, const DutEnd& end, uint32_t tester_qpn) {
  call_dut("modify_qp",
           {{"qpn", end.qpn},
            {"attrs", {{"state", "INIT"}, {"pkey", 0xffff}, {"access_flags", Json::array()}}}});
  call_dut("modify_qp", {{"qpn", end.qpn},
                         {"attrs",
                          {{"state", "RTR"},
                           {"path_mtu", 1024},
                           {"dest_qpn", tester_qpn},
                           {"rq_psn", 0},
                           {"max_dest_rd_atomic", 1},
                           {"min_rnr_timer", 1},
                           {"av", {{"dmac", "02:00:00:00:00:01"}, {"dip", "198.18.0.1"}}}}}});
}

// The harness owns time: move it event by event until the exchange settles.
void settle(EmbeddedReferenceDut& dut, agent::ReferenceBackend& tester) {
  for (int step = 0; step < 1000; ++step) {
    dut.service();
    tester.service(0);
    auto next = dut.link_pair().next_delivery_ns();
    if (!next) break;
    if (*next > dut.clock().now_ns()) dut.clock().set(*next);
  }
}

// The harness drives the embedded reference DUT through DutControl and plays its peer
// with a second reference device on the tester's end of the link, on the DUT's clock.
TEST(EmbeddedReferenceDut, TesterAndDutExchangeASendOverTheExposedLink) {
  EmbeddedDutOptions options;
  options.seed = 5;
  EmbeddedReferenceDut dut(options);
  ASSERT_TRUE(dut.control().hello("ignored in process"));
  agent::ReferenceBackend tester(
      dut.tester_link(), dut.clock(),
      {.mac = {{2, 0, 0, 0, 0, 1}}, .ipv4 = {{198, 18, 0, 1}}, .seed = 9, .mutants = {}});
  const DutCall call_dut = testing::control_call(dut.control());
  const DutEnd end = create_dut_end(call_dut);
  testing::PeerEnd tester_end;
  ASSERT_NO_FATAL_FAILURE(testing::create_peer_end(tester, 4096, 0x5000, tester_end));
  connect_dut_end(call_dut, end, tester_end.qpn);
  ASSERT_NO_FATAL_FAILURE(testing::connect_peer_end(tester, tester_end, end.qpn, kDutMac, kDutIp));

  call_dut(
      "post_recv",
      {{"qpn", end.qpn},
       {"wr",
        {{"wr_id", 1}, {"sg_list", {{{"addr", end.va}, {"length", 64}, {"lkey", end.lkey}}}}}}});
  ASSERT_TRUE(tester.write_mem(
      {.lkey = tester_end.mr.lkey, .va = 0x5000, .length = 4, .data = {1, 2, 3, 4}}));
  transport::SendWr wr;
  wr.wr_id = 42;
  wr.sg_list = {{0x5000, 4, tester_end.mr.lkey}};
  ASSERT_TRUE(tester.post_send(tester_end.qpn, wr));
  settle(dut, tester);

  const Json completions = call_dut("poll_cq", {{"cq", end.cq}})["completions"];
  ASSERT_EQ(completions.size(), 1U) << completions;
  EXPECT_EQ(completions[0]["byte_len"], 4);
  EXPECT_EQ(call_dut("read_mem", {{"lkey", end.lkey}, {"va", end.va}, {"length", 4}})["data"],
            "01020304");
  auto sent = tester.poll_cq({.cq = tester_end.cq});
  ASSERT_TRUE(sent);
  ASSERT_EQ(sent->size(), 1U);
  EXPECT_EQ((*sent)[0].status, transport::WcStatus::kSuccess);
}

TEST(EmbeddedReferenceDut, ErrorsComeBackAsValues) {
  EmbeddedReferenceDut dut;
  auto r = dut.control().call("create_cq", {{"depth", 0}});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kEinval);
  EXPECT_EQ(r.error().field, "depth");
  auto unknown = dut.control().call("warp_drive");
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().code, ErrorCode::kEnotsup);
  auto bye = dut.control().call("bye");
  ASSERT_TRUE(bye);
  auto after = dut.control().call("create_pd");
  ASSERT_FALSE(after);
  EXPECT_EQ(after.error().code, ErrorCode::kEproto);
}

// What a call returns when the agent answers with `reply` (JSON text, the id put in).
Result<Json> call_answered_by(const std::string& reply) {
  DutControl control(std::make_unique<CannedReplyTransport>(reply), 1'000);
  return control.call("post_recv", {{"qpn", 17}});
}

TEST(DutControlErrors, AnErrorReplyKeepsTheAgentsCodeFieldAndMessage) {
  auto full = call_answered_by(
      R"({"ok": false, "error": {"code": "ENOSPC", "message": "receive queue full", )"
      R"("field": "wr"}})");
  ASSERT_FALSE(full);
  EXPECT_EQ(full.error().code, ErrorCode::kEnospc);
  EXPECT_EQ(full.error().field, "wr");
  EXPECT_EQ(full.error().message, "receive queue full");
  EXPECT_EQ(full.error().to_string(), "ENOSPC wr: receive queue full");
  auto invalid =
      call_answered_by(R"({"ok": false, "error": {"code": "EINVAL", "message": "no such QP"}})");
  ASSERT_FALSE(invalid);
  EXPECT_EQ(invalid.error().code, ErrorCode::kEinval);
  EXPECT_EQ(invalid.error().to_string(), "EINVAL: no such QP");
}

TEST(DutControlErrors, AnErrorWithoutAProtocolCodeIsEprotoAndSaysWhatCame) {
  auto unknown =
      call_answered_by(R"({"ok": false, "error": {"code": "EFULL", "message": "no room"}})");
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().code, ErrorCode::kEproto);
  EXPECT_EQ(unknown.error().to_string(), "EPROTO: unknown error code 'EFULL': no room");
  // A numeric code, an error that is a string, no error at all: the reply is quoted.
  for (const std::string reply :
       {R"({"ok": false, "error": {"code": 28, "message": "full"}})",
        R"({"ok": false, "error": "out of memory"})", R"({"ok": false})"}) {
    auto r = call_answered_by(reply);
    ASSERT_FALSE(r) << reply;
    EXPECT_EQ(r.error().code, ErrorCode::kEproto) << reply;
    EXPECT_TRUE(r.error().message.starts_with("malformed reply: {")) << r.error().to_string();
  }
  auto not_json = call_answered_by("ENOSPC");
  ASSERT_FALSE(not_json);
  EXPECT_EQ(not_json.error().to_string(), "EPROTO: reply is not a JSON object: ENOSPC");
}

TEST(TcpDutControl, ConnectsWithTheTokenAndNotWithout) {
  io::VirtualClock clock;
  io::MemoryLinkPair pair(clock);
  agent::ReferenceBackend backend(
      pair.b(), clock,
      {.mac = {{2, 0, 0, 0, 0, 2}}, .ipv4 = {{198, 18, 0, 2}}, .seed = 1, .mutants = {}});
  agent::RequestDispatcher dispatcher(backend, "reference");
  auto server = agent::AgentServer::listen({.port = 0, .token = "tok", .tick_ms = 20}, dispatcher);
  ASSERT_TRUE(server) << server.error();
  std::atomic<bool> stop{false};
  std::thread serving([&] { server->serve(stop); });

  auto control = DutControl::connect("127.0.0.1", server->port(), "tok");
  ASSERT_TRUE(control) << control.error().to_string();
  auto pd = control->call("create_pd");
  ASSERT_TRUE(pd);
  EXPECT_EQ((*pd)["pd"], 1);
  auto caps = control->call("capabilities");
  ASSERT_TRUE(caps);
  EXPECT_EQ((*caps)["device"]["kind"], "reference");
  auto bad = control->call("reg_mr", {{"pd", 1}, {"length", 64}, {"access", {"FLY"}}});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().field, "access[0]");
  ASSERT_TRUE(control->call("bye"));

  auto wrong = DutControl::connect("127.0.0.1", server->port(), "not the token", 2'000);
  ASSERT_FALSE(wrong);
  EXPECT_EQ(wrong.error().code, ErrorCode::kEproto) << wrong.error().to_string();
  stop = true;
  serving.join();
}

}  // namespace
}  // namespace mr::dut
