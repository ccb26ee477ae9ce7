// The typed client builds the protocol's requests and reads its replies strictly: a reply
// with a member missing or of the wrong type is an EPROTO error that names the member and
// quotes the reply, never an exception; the agent's own error passes through unchanged.
#include "harness/protocol/dut_client.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace mr::protocol {
namespace {

// Answers every request with `reply` (parsed), and keeps the requests it was sent.
struct CannedAgent {
  Json reply;
  std::vector<Json> sent;

  DutClient client() {
    return DutClient([this](Json request) -> Reply<Json> {
      sent.push_back(std::move(request));
      return reply;
    });
  }
};

CannedAgent agent(const std::string& reply) { return {Json::parse(reply), {}}; }

TEST(DutClient, CreateQpSendsTheProtocolsMembersAndReadsTheQpn) {
  auto a = agent(R"({"qpn": 6040914})");
  auto qpn = a.client().create_qp(
      {.pd = 1, .send_cq = 2, .recv_cq = 2, .type = "UD", .max_send_wr = 1024});
  ASSERT_TRUE(qpn) << qpn.error().to_string();
  EXPECT_EQ(*qpn, 6040914u);
  EXPECT_EQ(a.sent.at(0), Json::parse(R"({"op": "create_qp", "pd": 1, "send_cq": 2,
      "recv_cq": 2, "type": "UD", "max_send_wr": 1024})"));
}

TEST(DutClient, DoctorReturnsTheReportAsSentAndByeEndsTheSession) {
  auto a = agent(R"({"checks": [{"id": "rdma.devices", "severity": "ok"}]})");
  auto report = a.client().doctor();
  ASSERT_TRUE(report) << report.error().to_string();
  EXPECT_EQ((*report)["checks"][0]["id"], "rdma.devices");
  ASSERT_TRUE(a.client().bye());
  EXPECT_EQ(a.sent.at(0), Json::parse(R"({"op": "doctor"})"));
  EXPECT_EQ(a.sent.at(1), Json::parse(R"({"op": "bye"})"));
}

TEST(DutClient, ADoctorReplyThatIsNoObjectIsEproto) {
  auto a = agent("[1, 2]");
  auto report = a.client().doctor();
  ASSERT_FALSE(report);
  EXPECT_EQ(report.error().code, protocol::ErrorCode::kEproto) << report.error().to_string();
}

TEST(DutClient, ModifyQpSendsOnlyTheAttributesSet) {
  auto a = agent("{}");
  QpAttrs rtr{.state = "RTR", .path_mtu = 1024, .av = AddressVector{.dip = "198.18.0.1"}};
  ASSERT_TRUE(a.client().modify_qp(17, rtr));
  EXPECT_EQ(a.sent.at(0), Json::parse(R"({"op": "modify_qp", "qpn": 17,
      "attrs": {"state": "RTR", "path_mtu": 1024, "av": {"dip": "198.18.0.1"}}})"));
}

TEST(DutClient, PostSendCarriesTheUdDestination) {
  auto a = agent("{}");
  SendWr wr{.opcode = "SEND", .sg_list = {{.addr = 0x1000, .length = 8, .lkey = 3}}, .wr_id = 9};
  wr.ud = UdDestination{.ah = {.dip = "198.18.0.1"}, .remote_qpn = 5, .remote_qkey = 7};
  ASSERT_TRUE(a.client().post_send(4, wr));
  EXPECT_EQ(a.sent.at(0)["wr"], Json::parse(R"({"opcode": "SEND", "wr_id": 9,
      "sg_list": [{"addr": 4096, "length": 8, "lkey": 3}],
      "ud": {"ah": {"dip": "198.18.0.1"}, "remote_qpn": 5, "remote_qkey": 7}})"));
}

TEST(DutClient, PollCqReadsCompletionsWithTheirOptionalMembers) {
  auto a = agent(R"({"completions": [{"wr_id": 1, "status": "SUCCESS", "opcode": "RECV",
      "byte_len": 64, "qp_num": 17, "imm_data": 5, "src_qp": 3, "grh": true}]})");
  auto got = a.client().poll_cq(2, 1, 100);
  ASSERT_TRUE(got) << got.error().to_string();
  ASSERT_EQ(got->size(), 1u);
  const Completion& c = got->at(0);
  EXPECT_EQ(c.status, "SUCCESS");
  EXPECT_EQ(c.opcode, "RECV");
  EXPECT_EQ(c.byte_len, 64u);
  EXPECT_EQ(c.imm_data, 5u);
  EXPECT_EQ(c.src_qp, 3u);
  EXPECT_EQ(c.grh, true);
  EXPECT_FALSE(c.solicited);
  EXPECT_EQ(to_json(c), a.reply["completions"][0]);
  EXPECT_EQ(a.sent.at(0), Json::parse(R"({"op": "poll_cq", "cq": 2, "max": 1,
      "timeout_ms": 100})"));
}

TEST(DutClient, SixtyFourBitValuesAbove2To53GoAsDecimalStrings) {
  auto a = agent("{}");
  SendWr wr{.opcode = "RDMA_WRITE",
            .sg_list = {{.addr = 0xffffffffffff0000, .length = 8, .lkey = 3}},
            .wr_id = (uint64_t{1} << 53) - 1,
            .remote_addr = uint64_t{1} << 53};
  ASSERT_TRUE(a.client().post_send(4, wr));
  const Json& sent = a.sent.at(0)["wr"];
  EXPECT_EQ(sent["wr_id"], Json(9007199254740991U));  // a double holds it: still a number
  EXPECT_EQ(sent["remote_addr"], Json("9007199254740992"));
  EXPECT_EQ(sent["sg_list"][0]["addr"], Json("18446744073709486080"));
}

TEST(DutClient, AWideValueReadsAsANumberOrAsItsString) {
  auto a = agent(R"({"completions": [
      {"wr_id": "18446744073709551615", "status": "SUCCESS", "opcode": "SEND", "byte_len": 0,
       "qp_num": 17},
      {"wr_id": "0x20000000000001", "status": "SUCCESS", "opcode": "SEND", "byte_len": 0,
       "qp_num": 17},
      {"wr_id": 7, "status": "SUCCESS", "opcode": "SEND", "byte_len": 0, "qp_num": 17}]})");
  auto got = a.client().poll_cq(2, 3, 100);
  ASSERT_TRUE(got) << got.error().to_string();
  ASSERT_EQ(got->size(), 3u);
  EXPECT_EQ(got->at(0).wr_id, 18446744073709551615U);
  EXPECT_EQ(got->at(1).wr_id, (uint64_t{1} << 53) + 1);
  EXPECT_EQ(got->at(2).wr_id, 7U);
}

TEST(DutClient, AWideValueStringThatIsNoNumberIsEprotoNamingTheMember) {
  for (const char* bad : {R"("")", R"("12x")", R"("-1")", R"("18446744073709551616")", R"("0x")"}) {
    auto a = agent(std::string(R"({"lkey": 1, "rkey": 2, "length": 64, "va": )") + bad + "}");
    auto got = a.client().reg_mr({.pd = 1, .length = 64});
    ASSERT_FALSE(got) << bad;
    EXPECT_EQ(got.error().code, protocol::ErrorCode::kEproto) << bad;
    EXPECT_NE(got.error().message.find("va"), std::string::npos) << got.error().message;
  }
}

TEST(DutClient, AWronglyTypedCompletionMemberIsEprotoNamingItAndQuotingTheReply) {
  auto a = agent(R"({"completions": [{"wr_id": 1, "status": 0, "opcode": "RECV",
      "byte_len": 64, "qp_num": 17}]})");
  auto got = a.client().poll_cq(2, 1, 0);
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().code, protocol::ErrorCode::kEproto);
  EXPECT_EQ(got.error().message,
            "poll_cq reply: completions[0].status: expected a string; reply: "
            R"({"completions":[{"byte_len":64,"opcode":"RECV","qp_num":17,"status":0,)"
            R"("wr_id":1}]})");
}

TEST(DutClient, MalformedRepliesAreErrorsNotExceptions) {
  struct Case {
    const char* reply;
    const char* starts;
  };
  const std::vector<Case> cases = {
      {R"({})", "poll_cq reply: completions: missing; reply: {}"},
      {R"({"completions": {}})", "poll_cq reply: completions: expected an array"},
      {R"({"completions": [7]})", "poll_cq reply: completions[0]: expected an object"},
      {R"({"completions": [{"wr_id": -1}]})",
       "poll_cq reply: completions[0].wr_id: expected an unsigned integer"},
      {R"({"completions": [{"wr_id": 1.5}]})",
       "poll_cq reply: completions[0].wr_id: expected an unsigned integer"},
      {R"([1, 2])", "poll_cq reply: expected an object; reply: [1,2]"},
      {R"({"completions": [{"wr_id": 1, "status": "SUCCESS", "opcode": "SEND",
          "byte_len": 0, "qp_num": 1, "grh": 1}]})",
       "poll_cq reply: completions[0].grh: expected true or false"},
  };
  for (const auto& c : cases) {
    auto a = agent(c.reply);
    auto got = a.client().poll_cq(1, 1, 0);
    ASSERT_FALSE(got) << c.reply;
    EXPECT_EQ(got.error().code, protocol::ErrorCode::kEproto);
    EXPECT_EQ(got.error().message.rfind(c.starts, 0), 0u) << got.error().message;
  }
}

TEST(DutClient, AHandleOutOfRangeIsMalformed) {
  auto a = agent(R"({"pd": 4294967296})");
  auto pd = a.client().create_pd();
  ASSERT_FALSE(pd);
  EXPECT_EQ(pd.error().message.rfind("create_pd reply: pd: expected at most 4294967295", 0), 0u)
      << pd.error().message;
}

TEST(DutClient, TheQuotedReplyIsCutAt200Characters) {
  auto a =
      agent(R"({"counters": {"sent_pkts": "many", "pad": ")" + std::string(500, 'x') + R"("}})");
  auto got = a.client().counters();
  ASSERT_FALSE(got);
  const std::string& m = got.error().message;
  EXPECT_EQ(m.rfind("counters reply: counters.pad: expected an unsigned integer or its decimal "
                    "string; reply: ",
                    0),
            0u)
      << m;
  EXPECT_EQ(m.substr(m.size() - 3), "...");
  EXPECT_LT(m.size(), 300u);
}

TEST(DutClient, CountersAreReadByName) {
  auto a = agent(R"({"counters": {"sent_pkts": 3, "rcvd_pkts": 4}})");
  auto got = a.client().counters();
  ASSERT_TRUE(got) << got.error().to_string();
  EXPECT_EQ(got->at("sent_pkts"), 3u);
  EXPECT_EQ(got->at("rcvd_pkts"), 4u);
}

TEST(DutClient, ReadMemChecksTheHexAndItsLength) {
  auto ok = agent(R"({"data": "68656C6c"})");
  auto got = ok.client().read_mem(1, 0x1000, 4);
  ASSERT_TRUE(got) << got.error().to_string();
  EXPECT_EQ(*got, (std::vector<uint8_t>{0x68, 0x65, 0x6c, 0x6c}));
  auto short_reply = agent(R"({"data": "6865"})");
  auto bad = short_reply.client().read_mem(1, 0x1000, 4);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message, R"(read_mem reply: data: expected 4 bytes of hex; reply: )"
                                 R"({"data":"6865"})");
  auto not_hex = agent(R"({"data": "zz"})");
  EXPECT_FALSE(not_hex.client().read_mem(1, 0, 1));
}

TEST(DutClient, WriteMemSendsLowercaseHex) {
  auto a = agent("{}");
  const std::vector<uint8_t> data{0xAB, 0x01};
  ASSERT_TRUE(a.client().write_mem(5, 0x20, data));
  EXPECT_EQ(a.sent.at(0), Json::parse(R"({"op": "write_mem", "lkey": 5, "va": 32,
      "data": "ab01"})"));
}

TEST(DutClient, QueryQpNeedsTheState) {
  auto a = agent(R"({"attrs": {"state": "RTS", "sq_psn": 5}})");
  auto got = a.client().query_qp(3);
  ASSERT_TRUE(got) << got.error().to_string();
  EXPECT_EQ(got->state, "RTS");
  EXPECT_EQ(got->sq_psn, 5u);
  auto missing = agent(R"({"attrs": {}})");
  auto bad = missing.client().query_qp(3);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message, R"(query_qp reply: attrs.state: missing; reply: {"attrs":{}})");
}

// Part II (spec 20.1, 25.1): the EV set goes as {ev, plane} objects; query_qp reads it back
// with each entry's state.
TEST(DutClient, ModifyQpSendsTheEvSetAndQueryQpReadsItsStates) {
  auto a = agent("{}");
  QpAttrs rtr{.state = "RTR",
              .ev_set = std::vector<EvEntry>{{.ev = 4097, .plane = 0}, {.ev = 4098, .plane = 3}}};
  ASSERT_TRUE(a.client().modify_qp(17, rtr));
  EXPECT_EQ(a.sent.at(0)["attrs"], Json::parse(R"({"state": "RTR",
      "ev_set": [{"ev": 4097, "plane": 0}, {"ev": 4098, "plane": 3}]})"));
  auto q = agent(R"({"attrs": {"state": "RTS", "ext_mode": "EXT", "ev_set": [
      {"ev": 4097, "plane": 0, "state": "GOOD"}, {"ev": 4098, "plane": 3, "state": "DENIED"}]}})");
  auto got = q.client().query_qp(17);
  ASSERT_TRUE(got) << got.error().to_string();
  EXPECT_EQ(got->ext_mode, "EXT");
  ASSERT_TRUE(got->ev_set);
  ASSERT_EQ(got->ev_set->size(), 2U);
  EXPECT_EQ(got->ev_set->at(1).ev, 4098U);
  EXPECT_EQ(got->ev_set->at(1).plane, 3U);
  EXPECT_EQ(got->ev_set->at(1).state, "DENIED");
  auto base = agent(R"({"attrs": {"state": "RTS", "ev_set": [{"ev": 1, "plane": 0}]}})");
  auto unused = base.client().query_qp(17);
  ASSERT_TRUE(unused) << unused.error().to_string();
  EXPECT_FALSE(unused->ev_set->at(0).state);  // a base QP's set has no states
  EXPECT_FALSE(unused->ext_mode);
}

TEST(DutClient, AMalformedEvSetEntryIsEprotoNamingIt) {
  auto a = agent(R"({"attrs": {"state": "RTS", "ev_set": [{"ev": 1, "plane": 0},
      {"ev": 2, "plane": 16}]}})");
  auto got = a.client().query_qp(17);
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().code, protocol::ErrorCode::kEproto);
  EXPECT_NE(got.error().message.find("attrs.ev_set[1].plane"), std::string::npos)
      << got.error().message;
}

TEST(DutClient, SetPortAndSetEvState) {
  auto a = agent("{}");
  ASSERT_TRUE(a.client().set_port(2, false));
  EXPECT_EQ(a.sent.at(0), Json::parse(R"({"op": "set_port", "plane": 2, "up": false})"));
  auto e = agent(R"({"state": "DENIED"})");
  auto state = e.client().set_ev_state(17, 4097, "DENIED");
  ASSERT_TRUE(state) << state.error().to_string();
  EXPECT_EQ(*state, "DENIED");
  EXPECT_EQ(e.sent.at(0), Json::parse(R"({"op": "set_ev_state", "qpn": 17, "ev": 4097,
      "state": "DENIED"})"));
  auto missing = agent("{}");
  auto bad = missing.client().set_ev_state(17, 4097, "GOOD");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, protocol::ErrorCode::kEproto);
}

TEST(DutClient, TheAgentsErrorPassesThrough) {
  DutClient client([](const Json&) -> Reply<Json> {
    return protocol::control_error(protocol::ErrorCode::kEnospc, "no room", "length");
  });
  auto mr = client.reg_mr({.pd = 1, .length = 4096, .access = {"LOCAL_WRITE"}});
  ASSERT_FALSE(mr);
  EXPECT_EQ(mr.error().code, protocol::ErrorCode::kEnospc);
  EXPECT_EQ(mr.error().field, "length");
}

TEST(DutClient, CapabilitiesReadTheIdentity) {
  auto a = agent(R"({"device": {"name": "n", "kind": "reference", "vendor": "v",
      "version": "1"}, "mac": "02:00:00:00:00:02", "ips": ["198.18.0.2"],
      "gids": [{"index": 1, "gid": "::ffff:198.18.0.2", "type": "RoCEv2"}],
      "mtus": [1024], "limits": {}, "pics": ["rc.send"],
      "mutants": [{"name": "m", "clauses": "c", "description": "d"}]})");
  auto caps = a.client().capabilities();
  ASSERT_TRUE(caps) << caps.error().to_string();
  EXPECT_EQ(caps->device.kind, "reference");
  EXPECT_EQ(caps->gids.at(0).gid, "::ffff:198.18.0.2");
  EXPECT_EQ(caps->mutants, std::vector<std::string>{"m"});
  EXPECT_EQ(to_json(caps->device), a.reply["device"]);
  EXPECT_TRUE(caps->limits.empty());
  EXPECT_EQ(caps->time_dilation, 1U) << "a device that does not say runs on the real clock";
}

TEST(DutClient, CapabilitiesReadLimitsAndTimeDilation) {
  auto a = agent(R"({"device": {"name": "n", "kind": "reference", "vendor": "v",
      "version": "1"}, "mac": "02:00:00:00:00:02", "ips": [], "gids": [], "mtus": [1024],
      "limits": {"max_qp": 8, "max_ext_ooo_messages": 256}, "pics": [], "mutants": [],
      "time_dilation": 100})");
  auto caps = a.client().capabilities();
  ASSERT_TRUE(caps) << caps.error().to_string();
  EXPECT_EQ(caps->limits.at("max_ext_ooo_messages"), 256U);
  EXPECT_EQ(caps->limits.at("max_qp"), 8U);
  EXPECT_EQ(caps->time_dilation, 100U);
  auto bad = agent(R"({"device": {"name": "n", "kind": "k", "vendor": "v", "version": "1"},
      "mac": "m", "ips": [], "gids": [], "mtus": [], "limits": {"max_qp": "many"},
      "pics": [], "mutants": []})");
  auto refused = bad.client().capabilities();
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().to_string().find("limits.max_qp"), std::string::npos)
      << refused.error().to_string();
}

}  // namespace
}  // namespace mr::protocol
