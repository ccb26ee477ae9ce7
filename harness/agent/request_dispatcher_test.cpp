#include "harness/agent/request_dispatcher.h"

#include <gtest/gtest.h>

#include <bit>
#include <cstring>
#include <fstream>
#include <random>
#include <set>

#include "harness/agent/reference_backend.h"
#include "harness/agent/testing/rc_setup.h"
#include "harness/doctor/doctor_report.h"
#include "harness/doctor/testing/fake_host.h"
#include "reference/io/clock.h"
#include "reference/io/memory_link.h"

namespace mr::agent {
namespace {

using testing::Call;
using testing::RcEnd;

constexpr const char* kMacA = "02:00:00:00:00:01";
constexpr const char* kMacB = "02:00:00:00:00:02";
constexpr const char* kIpA = "198.18.0.1";
constexpr const char* kIpB = "198.18.0.2";

ReferenceBackendOptions options(const char* mac, const char* ip, uint64_t seed) {
  return {.mac = *wire::MacAddress::parse(mac),
          .ipv4 = *wire::Ipv4Address::parse(ip),
          .ipv6_global = {},
          .seed = seed,
          .mutants = {}};
}

// Two reference backends back to back over a memory link on a virtual clock, each behind
// its own dispatcher: the in-process set-up of the harness, twice.
class TwoBackends : public ::testing::Test {
 protected:
  io::VirtualClock clock{1'000'000};
  io::MemoryLinkPair pair{clock, {.latency_ns = 1'000}};
  ReferenceBackend a{pair.a(), clock, options(kMacA, kIpA, 11)};
  ReferenceBackend b{pair.b(), clock, options(kMacB, kIpB, 22)};
  RequestDispatcher da{a, "reference"};
  RequestDispatcher db{b, "reference"};
  Call call_a = testing::dispatcher_call(da);
  Call call_b = testing::dispatcher_call(db);

  // Moves frames and time until nothing is in flight.
  void run() {
    for (int step = 0; step < 100'000; ++step) {
      a.service(0);
      b.service(0);
      const auto next = pair.next_delivery_ns();
      if (!next) return;
      if (*next > clock.now_ns()) clock.set(*next);
    }
    ADD_FAILURE() << "the exchange did not settle";
  }

  Json reply(RequestDispatcher& d, const std::string& line) {
    return Json::parse(d.handle_line(line).reply);
  }
};

// Two RC ends, one on each backend, created and connected to each other through the
// protocol, MTU 1024.
class ConnectedRcEnds : public TwoBackends {
 protected:
  void SetUp() override {
    ea = testing::create_rc_end(call_a, 0x10000);
    eb = testing::create_rc_end(call_b, 0x20000);
    ASSERT_NE(ea.qpn, 0U);
    ASSERT_NE(eb.qpn, 0U);
    EXPECT_EQ(ea.va, 0x10000U);
    testing::connect_rc(call_a, ea, eb.qpn, kMacB, kIpB);
    testing::connect_rc(call_b, eb, ea.qpn, kMacA, kIpA);
    EXPECT_EQ(call_a("query_qp", {{"qpn", ea.qpn}})["attrs"]["state"], "RTS");
  }

  void write_pattern_to_b_at_4096();

  RcEnd ea;
  RcEnd eb;
  // 3000 bytes, hex: three packets at MTU 1024.
  const std::string pattern = [] {
    std::string hex;
    for (int i = 0; i < 3000; ++i) hex += agent::to_hex({static_cast<uint8_t>(i * 7)});
    return hex;
  }();
};

// RDMA WRITE of the pattern from a's region at +8192 to b's at +4096: a completes, b does not.
void ConnectedRcEnds::write_pattern_to_b_at_4096() {
  call_a("write_mem", {{"lkey", ea.lkey}, {"va", ea.va + 8192}, {"data", pattern}});
  call_a("post_send",
         {{"qpn", ea.qpn},
          {"wr",
           {{"wr_id", 2},
            {"opcode", "RDMA_WRITE"},
            {"sg_list", {{{"addr", ea.va + 8192}, {"length", 3000}, {"lkey", ea.lkey}}}},
            {"remote_addr", eb.va + 4096},
            {"rkey", eb.rkey}}}});
  run();
  const Json ca = call_a("poll_cq", {{"cq", ea.cq}})["completions"];
  ASSERT_EQ(ca.size(), 1U) << ca;
  EXPECT_EQ(ca[0]["opcode"], "RDMA_WRITE");
  EXPECT_EQ(ca[0]["status"], "SUCCESS");
  EXPECT_EQ(call_b("read_mem", {{"lkey", eb.lkey}, {"va", eb.va + 4096}, {"length", 3000}})["data"],
            pattern);
  EXPECT_TRUE(call_b("poll_cq", {{"cq", eb.cq}})["completions"].empty());
}

// SEND: 16 bytes from a's region into the receive buffer b posted.
TEST_F(ConnectedRcEnds, ASendFillsTheReceiveThePeerPosted) {
  call_a("write_mem",
         {{"lkey", ea.lkey}, {"va", ea.va}, {"data", "000102030405060708090a0b0c0d0e0f"}});
  call_b("post_recv",
         {{"qpn", eb.qpn},
          {"wr",
           {{"wr_id", 7}, {"sg_list", {{{"addr", eb.va}, {"length", 64}, {"lkey", eb.lkey}}}}}}});
  call_a("post_send", {{"qpn", ea.qpn},
                       {"wr",
                        {{"wr_id", "0xfffffffffffffff1"},
                         {"opcode", "SEND"},
                         {"sg_list", {{{"addr", ea.va}, {"length", 16}, {"lkey", ea.lkey}}}}}}});
  run();
  const Json ca = call_a("poll_cq", {{"cq", ea.cq}, {"max", 8}})["completions"];
  ASSERT_EQ(ca.size(), 1U) << ca;
  // Above 2^53 - 1 the reply carries it as its decimal string: no double can round it.
  EXPECT_EQ(ca[0]["wr_id"], "18446744073709551601");
  EXPECT_EQ(ca[0]["status"], "SUCCESS");
  EXPECT_EQ(ca[0]["opcode"], "SEND");
  const Json cb = call_b("poll_cq", {{"cq", eb.cq}, {"max", 8}})["completions"];
  ASSERT_EQ(cb.size(), 1U) << cb;
  EXPECT_EQ(cb[0]["wr_id"], 7);
  EXPECT_EQ(cb[0]["opcode"], "RECV");
  EXPECT_EQ(cb[0]["byte_len"], 16);
  EXPECT_EQ(cb[0]["qp_num"], eb.qpn);
  EXPECT_EQ(call_b("read_mem", {{"lkey", eb.lkey}, {"va", eb.va}, {"length", 16}})["data"],
            "000102030405060708090a0b0c0d0e0f");
}

TEST_F(ConnectedRcEnds, AnRdmaWriteFillsThePeersRegionAndCompletesOnlyAtTheRequester) {
  write_pattern_to_b_at_4096();
}

// RDMA READ: b's bytes at +4096, left there by a WRITE, come back into a's region at +32768.
TEST_F(ConnectedRcEnds, AnRdmaReadBringsBackWhatAWriteLeft) {
  ASSERT_NO_FATAL_FAILURE(write_pattern_to_b_at_4096());
  call_a("post_send",
         {{"qpn", ea.qpn},
          {"wr",
           {{"wr_id", 3},
            {"opcode", "RDMA_READ"},
            {"sg_list", {{{"addr", ea.va + 32768}, {"length", 3000}, {"lkey", ea.lkey}}}},
            {"remote_addr", eb.va + 4096},
            {"rkey", eb.rkey}}}});
  run();
  const Json ca = call_a("poll_cq", {{"cq", ea.cq}})["completions"];
  ASSERT_EQ(ca.size(), 1U) << ca;
  EXPECT_EQ(ca[0]["opcode"], "RDMA_READ");
  EXPECT_EQ(ca[0]["status"], "SUCCESS");
  EXPECT_EQ(ca[0]["byte_len"], 3000);
  EXPECT_EQ(
      call_a("read_mem", {{"lkey", ea.lkey}, {"va", ea.va + 32768}, {"length", 3000}})["data"],
      pattern);
  const Json counters = call_b("counters", Json::object())["counters"];
  // b took the WRITE's three packets and the READ request, and no packet failed its ICRC.
  EXPECT_EQ(counters["rcvd_pkts"].get<uint64_t>(), 4U);
  EXPECT_EQ(counters["icrc_errors"], 0);
}

// query_qp's PSNs are the QP's current ones, as ibv_query_qp reports them (rxe: req.psn
// and resp.psn), not the ones modify_qp set: traffic advances them.
// Part II through the control protocol: the reference offers its MXCAP; a QP given the
// peer's block runs in extension mode, one without stays base, and a WRITE and a SEND
// cross an Ext connection as TVer 1 packets with their data and completions intact.
TEST_F(TwoBackends, APeerMxcapAtRtrPutsTheQpInExtensionMode) {
  const Json caps_a = call_a("capabilities", Json::object());
  const Json caps_b = call_b("capabilities", Json::object());
  ASSERT_TRUE(caps_a.contains("mxcap"));
  EXPECT_EQ(caps_a["mxcap"], agent::to_hex(agent::reference_mxcap().bytes()));
  RcEnd ea = testing::create_rc_end(call_a, 0x10000);
  RcEnd eb = testing::create_rc_end(call_b, 0x20000);
  const std::vector<std::string> access = {"REMOTE_WRITE", "REMOTE_READ"};
  // Both blocks carry SECURE, so the management plane installs each direction's keys
  // (MR-SE-01); the exchange below is then sealed end to end.
  const Json a_to_b = {
      {"epoch", 1}, {"key", std::string(64, '1')}, {"salt", "a0a1a2a3"}, {"spi", 0x202}};
  const Json b_to_a = {
      {"epoch", 1}, {"key", std::string(64, '2')}, {"salt", "b0b1b2b3"}, {"spi", 0x101}};
  testing::connect_rc(call_a, ea, eb.qpn, kMacB, kIpB, access, caps_b["mxcap"],
                      {{"secure_sa", {{"tx", {a_to_b}}, {"rx", {b_to_a}}}}});
  testing::connect_rc(call_b, eb, ea.qpn, kMacA, kIpA, access, caps_a["mxcap"],
                      {{"secure_sa", {{"tx", {b_to_a}}, {"rx", {a_to_b}}}}});
  const Json qa = call_a("query_qp", {{"qpn", ea.qpn}})["attrs"];
  EXPECT_FALSE(qa.contains("secure_sa")) << "keys are never read back";
  EXPECT_EQ(qa["ext_mode"], "EXT");
  EXPECT_EQ(qa["peer_mxcap"], caps_b["mxcap"]);
  RcEnd base = testing::create_rc_end(call_a, 0x30000);
  testing::connect_rc(call_a, base, eb.qpn, kMacB, kIpB);
  EXPECT_EQ(call_a("query_qp", {{"qpn", base.qpn}})["attrs"]["ext_mode"], "BASE");

  std::string data;
  for (int i = 0; i < 3000; ++i) data += agent::to_hex({static_cast<uint8_t>(i * 13)});
  call_a("write_mem", {{"lkey", ea.lkey}, {"va", ea.va}, {"data", data}});
  call_b("post_recv",
         {{"qpn", eb.qpn},
          {"wr",
           {{"wr_id", 5},
            {"sg_list", {{{"addr", eb.va + 8192}, {"length", 4096}, {"lkey", eb.lkey}}}}}}});
  call_a("post_send", {{"qpn", ea.qpn},
                       {"wr",
                        {{"opcode", "RDMA_WRITE"},
                         {"wr_id", 1},
                         {"remote_addr", eb.va},
                         {"rkey", eb.rkey},
                         {"sg_list", {{{"addr", ea.va}, {"length", 3000}, {"lkey", ea.lkey}}}}}}});
  call_a("post_send", {{"qpn", ea.qpn},
                       {"wr",
                        {{"opcode", "SEND"},
                         {"wr_id", 2},
                         {"sg_list", {{{"addr", ea.va}, {"length", 100}, {"lkey", ea.lkey}}}}}}});
  run();
  const Json done = call_a("poll_cq", {{"cq", ea.cq}, {"max", 4}})["completions"];
  ASSERT_EQ(done.size(), 2U) << done.dump();
  EXPECT_EQ(done[0]["status"], "SUCCESS");
  EXPECT_EQ(done[1]["status"], "SUCCESS");
  const Json got = call_b("poll_cq", {{"cq", eb.cq}, {"max", 4}})["completions"];
  ASSERT_EQ(got.size(), 1U) << got.dump();
  EXPECT_EQ(got[0]["byte_len"], 100);
  const Json written = call_b("read_mem", {{"lkey", eb.lkey}, {"va", eb.va}, {"length", 3000}});
  EXPECT_EQ(written["data"], data);
  const Json a_counters = call_a("counters", Json::object())["counters"];
  EXPECT_EQ(a_counters["ext_retransmitted"], 0);
  const Json b_counters = call_b("counters", Json::object())["counters"];
  EXPECT_EQ(b_counters["se_auth_fail"], 0);
  EXPECT_EQ(b_counters["se_replay"], 0);
}

TEST_F(TwoBackends, BlocksThatBothCarrySecureWithoutKeysFailRtrNamingTheClause) {
  const Json caps_b = call_b("capabilities", Json::object());
  RcEnd ea = testing::create_rc_end(call_a, 0x10000);
  call_a("modify_qp",
         {{"qpn", ea.qpn},
          {"attrs", {{"state", "INIT"}, {"pkey", 0xffff}, {"access_flags", Json::array()}}}});
  const Json r =
      reply(da, R"({"id":9,"op":"modify_qp","qpn":)" + std::to_string(ea.qpn) +
                    R"(,"attrs":{"state":"RTR","path_mtu":1024,"dest_qpn":7,"rq_psn":1,)"
                    R"("max_dest_rd_atomic":1,"min_rnr_timer":1,)"
                    R"("av":{"dmac":"02:00:00:00:00:02","dip":"198.18.0.2"},"peer_mxcap":")" +
                    caps_b["mxcap"].get<std::string>() + R"("}})");
  EXPECT_FALSE(r["ok"].get<bool>()) << r.dump();
  EXPECT_NE(r["error"]["message"].get<std::string>().find("MR-SE-01"), std::string::npos)
      << r.dump();
  const Json rotate = reply(da, R"({"id":10,"op":"modify_qp","qpn":)" + std::to_string(ea.qpn) +
                                    R"(,"attrs":{"secure_rotate":true}})");
  EXPECT_EQ(rotate["error"]["field"], "attrs.secure_rotate") << rotate.dump();
}

TEST_F(TwoBackends, ABadPeerMxcapIsRefusedNamingTheField) {
  RcEnd ea = testing::create_rc_end(call_a, 0x10000);
  call_a("modify_qp",
         {{"qpn", ea.qpn},
          {"attrs", {{"state", "INIT"}, {"pkey", 0xffff}, {"access_flags", Json::array()}}}});
  for (const char* block : {"zz", "4d5258", "4d52583101"}) {
    const Json r = reply(da, R"({"id":3,"op":"modify_qp","qpn":)" + std::to_string(ea.qpn) +
                                 R"(,"attrs":{"peer_mxcap":")" + block + R"("}})");
    EXPECT_EQ(r["ok"], false) << block;
    EXPECT_EQ(r["error"]["field"], "attrs.peer_mxcap") << r.dump();
  }
}

// Part II through the protocol (spec sections 20.1 and 25.1): two Ext ends, a's with a
// management-given EV set on the reference's one plane.
class ExtEnds : public TwoBackends {
 protected:
  void SetUp() override {
    const std::string mxcap = agent::to_hex(wire::Mxcap{}.bytes());
    ea = testing::create_rc_end(call_a, 0x10000);
    eb = testing::create_rc_end(call_b, 0x20000);
    const std::vector<std::string> access = {"REMOTE_WRITE", "REMOTE_READ"};
    testing::connect_rc(call_a, ea, eb.qpn, kMacB, kIpB, access, mxcap, {{"ev_set", kSet}});
    testing::connect_rc(call_b, eb, ea.qpn, kMacA, kIpA, access, mxcap);
  }

  // Posts a 3000-byte RDMA WRITE from a to b and moves frames until nothing is in flight;
  // a's completions.
  Json write_a_to_b() {
    call_a("post_send",
           {{"qpn", ea.qpn},
            {"wr",
             {{"opcode", "RDMA_WRITE"},
              {"remote_addr", eb.va},
              {"rkey", eb.rkey},
              {"sg_list", {{{"addr", ea.va}, {"length", 3000}, {"lkey", ea.lkey}}}}}}});
    run();
    return call_a("poll_cq", {{"cq", ea.cq}, {"max", 4}})["completions"];
  }

  const Json kSet = Json::parse(R"([{"ev":4097,"plane":0},{"ev":4098,"plane":0}])");
  RcEnd ea;
  RcEnd eb;
};

TEST_F(ExtEnds, QueryQpReportsTheGivenEvSetWithItsStates) {
  const Json qa = call_a("query_qp", {{"qpn", ea.qpn}})["attrs"];
  EXPECT_EQ(qa["ext_mode"], "EXT");
  EXPECT_EQ(qa["ev_set"], Json::parse(R"([{"ev":4097,"plane":0,"state":"GOOD"},
      {"ev":4098,"plane":0,"state":"GOOD"}])"));
  // b was given none: its generated set, 16 entries on its one plane (section 20.1).
  const Json qb = call_b("query_qp", {{"qpn", eb.qpn}})["attrs"];
  ASSERT_EQ(qb["ev_set"].size(), 16U);
  EXPECT_EQ(qb["ev_set"][0]["plane"], 0);
}

// Section 25.1: with both of its EVs DENIED, a sends nothing and its WRITE waits; allowing
// one lets it go. The reply gives the entry's state after.
TEST_F(ExtEnds, DeniedEvsHoldTheQpsTrafficUntilOneIsAllowed) {
  for (const char* ev : {"4097", "4098"}) {
    EXPECT_EQ(call_a("set_ev_state", {{"qpn", ea.qpn}, {"ev", ev}, {"state", "DENIED"}}),
              Json({{"state", "DENIED"}}));
  }
  EXPECT_EQ(call_a("query_qp", {{"qpn", ea.qpn}})["attrs"]["ev_set"][1]["state"], "DENIED");
  const uint64_t sent = call_a("counters", Json::object())["counters"]["sent_pkts"];
  EXPECT_TRUE(write_a_to_b().empty());
  EXPECT_EQ(call_a("counters", Json::object())["counters"]["sent_pkts"], sent);
  EXPECT_EQ(call_a("set_ev_state", {{"qpn", ea.qpn}, {"ev", 4098}, {"state", "GOOD"}}),
            Json({{"state", "GOOD"}}));
  run();
  const Json done = call_a("poll_cq", {{"cq", ea.cq}})["completions"];
  ASSERT_EQ(done.size(), 1U) << done;
  EXPECT_EQ(done[0]["status"], "SUCCESS");
}

// The port of the reference's one plane down: nothing leaves; up again, the QP's traffic
// goes once T_PF_PORT_UP_HOLD has passed.
TEST_F(ExtEnds, APortDownHoldsTheQpsTrafficUntilUpAndItsHoldPassed) {
  EXPECT_EQ(call_a("set_port", {{"plane", 0}, {"up", false}}), Json::object());
  EXPECT_TRUE(write_a_to_b().empty());
  call_a("set_port", {{"plane", 0}, {"up", true}});
  clock.set(clock.now_ns() + transport::DeviceConfig{}.ext.paths.port_up_hold_ns + 1);
  a.service(0);
  run();
  const Json done = call_a("poll_cq", {{"cq", ea.cq}})["completions"];
  ASSERT_EQ(done.size(), 1U) << done;
  EXPECT_EQ(done[0]["status"], "SUCCESS");
}

TEST_F(ExtEnds, Part2ErrorsNameTheField) {
  const RcEnd base = testing::create_rc_end(call_a, 0x30000);
  testing::connect_rc(call_a, base, eb.qpn, kMacB, kIpB);  // no peer block: base mode
  const RcEnd fresh = testing::create_rc_end(call_a, 0x40000);
  call_a("modify_qp",
         {{"qpn", fresh.qpn},
          {"attrs", {{"state", "INIT"}, {"pkey", 0xffff}, {"access_flags", Json::array()}}}});
  struct Case {
    Json request;
    const char* code;
    const char* field;
    const char* message;
  };
  const std::vector<Case> cases = {
      {{{"op", "set_port"}, {"plane", 4}, {"up", false}},
       "EINVAL",
       "plane",
       "4 is not a plane of this device (it has 4)"},
      {{{"op", "set_ev_state"}, {"qpn", 12345}, {"ev", 4097}, {"state", "DENIED"}},
       "ENOENT",
       "qpn",
       nullptr},
      {{{"op", "set_ev_state"}, {"qpn", base.qpn}, {"ev", 4097}, {"state", "DENIED"}},
       "EINVAL",
       "qpn",
       nullptr},
      {{{"op", "set_ev_state"}, {"qpn", ea.qpn}, {"ev", 4099}, {"state", "DENIED"}},
       "EINVAL",
       "ev",
       nullptr},
      {{{"op", "modify_qp"},
        {"qpn", fresh.qpn},
        {"attrs",
         {{"state", "RTR"},
          {"path_mtu", 1024},
          {"dest_qpn", eb.qpn},
          {"rq_psn", 0},
          {"max_dest_rd_atomic", 1},
          {"min_rnr_timer", 1},
          {"av", {{"dmac", kMacB}, {"dip", kIpB}}},
          {"ev_set", Json::parse(R"([{"ev":1,"plane":0},{"ev":2,"plane":4}])")}}}},
       "EINVAL",
       "attrs.ev_set[1].plane",
       "4 is not a plane of this device (it has 4)"},
      {{{"op", "modify_qp"}, {"qpn", ea.qpn}, {"attrs", {{"ev_set", kSet}}}},
       "EINVAL",
       "attrs.ev_set",
       "given only with the move from INIT to RTR"},
  };
  uint64_t id = 100;
  for (const Case& c : cases) {
    Json request = c.request;
    request["id"] = id++;
    const Json r = reply(da, request.dump());
    ASSERT_FALSE(r["ok"].get<bool>()) << request;
    EXPECT_EQ(r["error"]["code"], c.code) << request << " -> " << r;
    EXPECT_EQ(r["error"].value("field", ""), c.field) << request << " -> " << r;
    if (c.message != nullptr) {
      EXPECT_EQ(r["error"]["message"], c.message) << r;
    }
  }
  EXPECT_EQ(call_a("query_qp", {{"qpn", fresh.qpn}})["attrs"]["state"], "INIT");
  EXPECT_EQ(call_a("query_qp", {{"qpn", ea.qpn}})["attrs"]["ev_set"][0]["state"], "GOOD");
}

// The counters reply carries every counter of the reference device, Part II's ext_* ones
// included, by the device's own names.
TEST_F(ExtEnds, CountersCarryEveryDeviceCounter) {
  const Json counters = call_a("counters", Json::object())["counters"];
  transport::DeviceCounters{}.for_each(
      [&](const char* name, uint64_t /*value*/) { EXPECT_TRUE(counters.contains(name)) << name; });
  EXPECT_TRUE(counters.contains("ext_acks_sent"));
}

TEST_F(TwoBackends, QueryQpReportsThePsnsTrafficAdvanced) {
  const RcEnd ea = testing::create_rc_end(call_a, 0x10000);
  const RcEnd eb = testing::create_rc_end(call_b, 0x20000);
  testing::connect_rc(call_a, ea, eb.qpn, kMacB, kIpB);  // sq_psn and rq_psn 0x100
  testing::connect_rc(call_b, eb, ea.qpn, kMacA, kIpA);
  // Three packets at MTU 1024.
  call_a("post_send", {{"qpn", ea.qpn},
                       {"wr",
                        {{"opcode", "RDMA_WRITE"},
                         {"sg_list", {{{"addr", ea.va}, {"length", 3000}, {"lkey", ea.lkey}}}},
                         {"remote_addr", eb.va},
                         {"rkey", eb.rkey}}}});
  run();
  ASSERT_EQ(call_a("poll_cq", {{"cq", ea.cq}})["completions"][0]["status"], "SUCCESS");
  const Json qa = call_a("query_qp", {{"qpn", ea.qpn}})["attrs"];
  const Json qb = call_b("query_qp", {{"qpn", eb.qpn}})["attrs"];
  EXPECT_EQ(qa["sq_psn"], 0x103);  // the next PSN a sends
  EXPECT_EQ(qa["rq_psn"], 0x100);  // a received no request
  EXPECT_EQ(qb["rq_psn"], 0x103);  // the PSN b expects next
  EXPECT_EQ(qb["sq_psn"], 0x100);
}

// An atomic's operand in memory is a 64-bit integer in the agent host's byte order, as verbs
// devices use it: read_mem and write_mem see those bytes as they are.
TEST_F(TwoBackends, AtomicOperandsAreHostOrderIntegersInReadMemAndWriteMem) {
  const RcEnd ea = testing::create_rc_end(call_a, 0x10000);
  const RcEnd eb = testing::create_rc_end(call_b, 0x20000);
  const std::vector<std::string> atomic = {"REMOTE_WRITE", "REMOTE_READ", "REMOTE_ATOMIC"};
  testing::connect_rc(call_a, ea, eb.qpn, kMacB, kIpB, atomic);
  testing::connect_rc(call_b, eb, ea.qpn, kMacA, kIpA, atomic);
  const Json target = call_b("reg_mr", {{"pd", eb.pd},
                                        {"length", 4096},
                                        {"va", 0x40000},
                                        {"access", {"LOCAL_WRITE", "REMOTE_ATOMIC"}}});
  auto host_order = [](uint64_t v) {
    std::vector<uint8_t> bytes(8);
    std::memcpy(bytes.data(), &v, 8);
    return to_hex(bytes);
  };
  if constexpr (std::endian::native == std::endian::little) {
    ASSERT_EQ(host_order(0x0102030405060708), "0807060504030201");
  }
  call_b("write_mem", {{"lkey", target["lkey"]}, {"va", 0x40000}, {"data", host_order(5)}});
  call_a("post_send", {{"qpn", ea.qpn},
                       {"wr",
                        {{"opcode", "ATOMIC_FETCH_AND_ADD"},
                         {"sg_list", {{{"addr", ea.va}, {"length", 8}, {"lkey", ea.lkey}}}},
                         {"remote_addr", 0x40000},
                         {"rkey", target["rkey"]},
                         {"compare_add", 3}}}});
  run();
  const Json c = call_a("poll_cq", {{"cq", ea.cq}})["completions"];
  ASSERT_EQ(c.size(), 1U) << c;
  EXPECT_EQ(c[0]["status"], "SUCCESS");
  EXPECT_EQ(call_b("read_mem", {{"lkey", target["lkey"]}, {"va", 0x40000}, {"length", 8}})["data"],
            host_order(8));
  // The original value lands in the requester's SGE the same way.
  EXPECT_EQ(call_a("read_mem", {{"lkey", ea.lkey}, {"va", ea.va}, {"length", 8}})["data"],
            host_order(5));
}

// pkey is the P_Key value (as the BTH carries it), not verbs' pkey_index.
TEST_F(TwoBackends, PkeyIsAValueAndQueryQpReportsIt) {
  const RcEnd ea = testing::create_rc_end(call_a, 0x10000);
  call_a("modify_qp",
         {{"qpn", ea.qpn},
          {"attrs", {{"state", "INIT"}, {"pkey", 0x7fff}, {"access_flags", {"REMOTE_READ"}}}}});
  EXPECT_EQ(call_a("query_qp", {{"qpn", ea.qpn}})["attrs"]["pkey"], 0x7fff);
}

// In an error completion, opcode and byte_len are undefined in verbs; the reference reports
// the failed work request's opcode with byte_len 0, and a flushed one as SEND with 0.
TEST_F(TwoBackends, ErrorCompletionsCarryTheOpcodeTheReferenceDocuments) {
  const RcEnd ea = testing::create_rc_end(call_a, 0x10000);
  const RcEnd eb = testing::create_rc_end(call_b, 0x20000);
  testing::connect_rc(call_a, ea, eb.qpn, kMacB, kIpB);
  testing::connect_rc(call_b, eb, ea.qpn, kMacA, kIpA);
  for (uint64_t wr_id : {1, 2}) {
    call_a("post_send", {{"qpn", ea.qpn},
                         {"wr",
                          {{"wr_id", wr_id},
                           {"opcode", "RDMA_WRITE"},
                           {"sg_list", {{{"addr", ea.va}, {"length", 100}, {"lkey", ea.lkey}}}},
                           {"remote_addr", eb.va},
                           {"rkey", eb.rkey ^ 0x100}}}});  // no such R_Key
  }
  run();
  const Json c = call_a("poll_cq", {{"cq", ea.cq}})["completions"];
  ASSERT_EQ(c.size(), 2U) << c;
  EXPECT_EQ(c[0]["status"], "REM_ACCESS_ERR");
  EXPECT_EQ(c[0]["opcode"], "RDMA_WRITE");
  EXPECT_EQ(c[0]["byte_len"], 0);
  EXPECT_EQ(c[1]["status"], "WR_FLUSH_ERR");
  EXPECT_EQ(c[1]["opcode"], "SEND");  // an RDMA_WRITE: the flushed WR's opcode is not kept
  EXPECT_EQ(c[1]["byte_len"], 0);
}

// A UD QP on each side: create_qp type UD, modify_qp with qkey, post_send with wr.ud, a
// receive completion with src_qp and the GRH area; wrong requests are refused with reasons.
TEST_F(TwoBackends, UdDatagramsCarryTheirDestinationAndSource) {
  auto ud_end = [](Call& call, uint64_t va) {
    RcEnd e;
    e.pd = call("create_pd", {})["pd"];
    Json mr =
        call("reg_mr", {{"pd", e.pd}, {"length", 4096}, {"va", va}, {"access", {"LOCAL_WRITE"}}});
    e.lkey = mr["lkey"];
    e.va = mr["va"];
    e.cq = call("create_cq", {{"depth", 16}})["cq"];
    e.qpn = call("create_qp",
                 {{"pd", e.pd}, {"send_cq", e.cq}, {"recv_cq", e.cq}, {"type", "UD"}})["qpn"];
    call("modify_qp",
         {{"qpn", e.qpn}, {"attrs", {{"state", "INIT"}, {"pkey", 0xffff}, {"qkey", 0x1234}}}});
    call("modify_qp", {{"qpn", e.qpn}, {"attrs", {{"state", "RTR"}}}});
    call("modify_qp", {{"qpn", e.qpn}, {"attrs", {{"state", "RTS"}, {"sq_psn", 0}}}});
    return e;
  };
  const RcEnd ea = ud_end(call_a, 0x10000);
  const RcEnd eb = ud_end(call_b, 0x20000);
  call_b("post_recv",
         {{"qpn", eb.qpn},
          {"wr",
           {{"wr_id", 5}, {"sg_list", {{{"addr", eb.va}, {"length", 256}, {"lkey", eb.lkey}}}}}}});
  call_a("write_mem", {{"lkey", ea.lkey}, {"va", ea.va}, {"data", "6461746167"}});
  const Json wr = {{"opcode", "SEND"},
                   {"sg_list", {{{"addr", ea.va}, {"length", 5}, {"lkey", ea.lkey}}}},
                   {"ud",
                    {{"ah", {{"dip", kIpB}, {"dmac", kMacB}}},
                     {"remote_qpn", eb.qpn},
                     {"remote_qkey", 0x1234}}}};
  call_a("post_send", {{"qpn", ea.qpn}, {"wr", wr}});
  run();
  Json cb = call_b("poll_cq", {{"cq", eb.cq}})["completions"];
  ASSERT_EQ(cb.size(), 1U) << cb;
  EXPECT_EQ(cb[0]["src_qp"], ea.qpn);
  EXPECT_EQ(cb[0]["grh"], true);
  EXPECT_EQ(cb[0]["byte_len"], 45);
  EXPECT_EQ(call_b("read_mem", {{"lkey", eb.lkey}, {"va", eb.va + 40}, {"length", 5}})["data"],
            "6461746167");
  Json bad = reply(da, Json{{"id", 9},
                            {"op", "post_send"},
                            {"qpn", ea.qpn},
                            {"wr", {{"opcode", "SEND"}, {"sg_list", Json::array()}}}}
                           .dump());
  EXPECT_EQ(bad["error"]["code"], "EINVAL") << bad;
  EXPECT_NE(bad["error"]["message"].get<std::string>().find("destination"), std::string::npos);
}

TEST_F(TwoBackends, ErrorRepliesNameTheFieldAndChangeNothing) {
  const RcEnd ea = testing::create_rc_end(call_a, 0x10000);
  const std::string before = da.handle_line(R"({"id":1,"op":"counters"})").reply;
  struct Case {
    std::string line;
    const char* code;
    const char* field;
  };
  const std::vector<Case> cases = {
      {R"({"id":2,"op":"reg_mr","pd":999,"length":64})", "ENOENT", "pd"},
      {R"({"id":3,"op":"create_qp","pd":)" + std::to_string(ea.pd) +
           R"(,"send_cq":99,"recv_cq":99,"type":"RC"})",
       "ENOENT", "send_cq"},
      {R"({"id":4,"op":"destroy","kind":"pd","handle":)" + std::to_string(ea.pd) + "}", "EBUSY",
       "handle"},
      {R"({"id":5,"op":"destroy","kind":"cq","handle":)" + std::to_string(ea.cq) + "}", "EBUSY",
       "handle"},
      {R"({"id":6,"op":"read_mem","lkey":)" + std::to_string(ea.lkey) +
           R"(,"va":131072,"length":1})",
       "EINVAL", "va"},
      {R"({"id":7,"op":"modify_qp","qpn":)" + std::to_string(ea.qpn) +
           R"(,"attrs":{"state":"RTS"}})",
       "EINVAL", "attrs"},
      {R"({"id":8,"op":"post_send","qpn":)" + std::to_string(ea.qpn) +
           R"(,"wr":{"opcode":"SEND","sg_list":[]}})",
       "EINVAL", "wr"},
      {R"({"id":9,"op":"post_recv","qpn":12345,"wr":{"sg_list":[]}})", "ENOENT", "qpn"},
      {R"({"id":10,"op":"poll_cq","cq":77})", "ENOENT", "cq"},
      {R"({"id":11,"op":"set_mutants","enable":["no-such-mutant"]})", "EINVAL", "enable[0]"},
      {R"({"id":12,"op":"hello","token":"t","protocol":2})", "ENOTSUP", "protocol"},
      {R"({"id":13,"op":"reg_mr","pd":)" + std::to_string(ea.pd) +
           R"(,"length":64,"access":["REMOTE_WRITE"]})",
       "EINVAL", "access"},
  };
  for (const Case& c : cases) {
    const Json r = reply(da, c.line);
    ASSERT_FALSE(r["ok"].get<bool>()) << c.line;
    EXPECT_EQ(r["error"]["code"], c.code) << c.line << " -> " << r;
    EXPECT_EQ(r["error"].value("field", ""), c.field) << c.line << " -> " << r;
  }
  const std::string after = da.handle_line(R"({"id":1,"op":"counters"})").reply;
  EXPECT_EQ(before, after);
  EXPECT_EQ(call_a("query_qp", {{"qpn", ea.qpn}})["attrs"]["state"], "RESET");
}

TEST_F(TwoBackends, DoctorReportsOnTheHostWhateverTheBackend) {
  doctor::testing::FakeHost host;
  host.add_rxe("rxe0", "eth0");
  da.set_doctor_options(doctor::inspect_options_for(host.root()));
  const Json r = reply(da, R"({"id":7,"op":"doctor"})");
  EXPECT_EQ(r["id"], 7);
  EXPECT_EQ(r["ok"], true);
  EXPECT_EQ(r["facts"]["devices"][0]["name"], "rxe0");
  auto report = doctor::report_from_json(r);
  ASSERT_TRUE(report) << report.error();
  EXPECT_FALSE(report->findings.empty());
  EXPECT_EQ(report->findings.front().check, "rdma.device.present");
  // The client names no path: the agent decides what it inspects.
  const Json bad = reply(da, R"({"id":8,"op":"doctor","root":"/etc"})");
  EXPECT_EQ(bad["error"]["code"], "EINVAL");
}

TEST_F(TwoBackends, CapabilitiesMatchTheReferencePics) {
  const Json caps = call_a("capabilities", Json::object());
  EXPECT_EQ(caps["device"]["kind"], "reference");
  EXPECT_EQ(caps["mac"], kMacA);
  EXPECT_EQ(caps["ips"][0], kIpA);
  ASSERT_GE(caps["gids"].size(), 2U);
  EXPECT_EQ(caps["gids"][1]["gid"], "::ffff:198.18.0.1");
  EXPECT_EQ(caps["gids"][1]["type"], "RoCEv2");
  EXPECT_GE(caps["mutants"].size(), 40U);
  EXPECT_EQ(caps["limits"]["max_ext_ooo_messages"], 256) << "section 22.2's message contexts";
  EXPECT_FALSE(caps.contains("time_dilation")) << "a backend on an undilated clock";
  std::ifstream file("testcases/profiles/reference.pics.json");
  ASSERT_TRUE(file) << "reference.pics.json not in the runfiles";
  const nlohmann::json pics = nlohmann::json::parse(file);
  std::set<std::string> want;
  for (const auto& [key, value] : pics["features"].items()) {
    if (value.get<bool>()) want.insert(key);
  }
  const std::set<std::string> have(caps["pics"].begin(), caps["pics"].end());
  EXPECT_EQ(have, want);
}

TEST_F(TwoBackends, ResetAndMutantsForgetEveryObject) {
  const RcEnd ea = testing::create_rc_end(call_a, 0x10000);
  call_a("set_mutants", {{"enable", {"two-naks-per-sequence-error"}}});
  Json r = reply(da, R"({"id":1,"op":"query_qp","qpn":)" + std::to_string(ea.qpn) + "}");
  EXPECT_EQ(r["error"]["code"], "ENOENT");
  const RcEnd again = testing::create_rc_end(call_a, 0x10000);
  call_a("reset", Json::object());
  r = reply(da, R"({"id":1,"op":"read_mem","lkey":)" + std::to_string(again.lkey) +
                    R"(,"va":65536,"length":1})");
  EXPECT_EQ(r["error"]["code"], "ENOENT");
  EXPECT_EQ(call_a("create_pd", Json::object())["pd"], 1);
}

TEST_F(TwoBackends, DestroyInDependencyOrder) {
  const RcEnd ea = testing::create_rc_end(call_a, 0x10000);
  for (const auto& [kind, handle] : {std::pair{"qp", ea.qpn}, std::pair{"cq", ea.cq},
                                     std::pair{"mr", ea.lkey}, std::pair{"pd", ea.pd}}) {
    call_a("destroy", {{"kind", kind}, {"handle", handle}});
    const Json r = reply(da, R"({"id":1,"op":"destroy","kind":")" + std::string(kind) +
                                 R"(","handle":)" + std::to_string(handle) + "}");
    EXPECT_EQ(r["error"]["code"], "ENOENT") << kind;
  }
}

// Random lines and mutated requests: every one gets a JSON reply, nothing crashes, and the
// dispatcher keeps serving afterwards.
TEST_F(TwoBackends, FuzzedLinesAlwaysGetAReply) {
  std::mt19937_64 rng(20240611);
  const std::vector<std::string> seeds = {
      R"({"id":1,"op":"reg_mr","pd":1,"length":4096,"access":["LOCAL_WRITE"]})",
      R"({"id":2,"op":"post_send","qpn":5,"wr":{"opcode":"SEND","sg_list":[{"addr":1,"length":2,"lkey":3}]}})",
      R"({"id":3,"op":"modify_qp","qpn":1,"attrs":{"state":"INIT","av":{"dip":"198.18.0.9"}}})",
      R"({"id":4,"op":"write_mem","lkey":1,"va":"0x10","data":"abcd"})",
      R"({"id":5,"op":"poll_cq","cq":1,"max":4})",
  };
  call_a("create_pd", Json::object());
  for (int i = 0; i < 20'000; ++i) {
    std::string line;
    if (i % 2 == 0) {
      const size_t n = rng() % 200;
      for (size_t k = 0; k < n; ++k) line.push_back(static_cast<char>(rng() % 256));
    } else {
      line = seeds[rng() % seeds.size()];
      const size_t flips = 1 + rng() % 4;
      for (size_t k = 0; k < flips; ++k) {
        line[rng() % line.size()] = static_cast<char>(rng() % 128);
      }
    }
    const DispatchResult r = da.handle_line(line);
    const Json parsed = Json::parse(r.reply, nullptr, false);
    ASSERT_TRUE(parsed.is_object()) << r.reply;
    ASSERT_TRUE(parsed.contains("ok")) << r.reply;
    if (!parsed["ok"].get<bool>()) {
      ASSERT_TRUE(parsed["error"].contains("code")) << r.reply;
    }
  }
  EXPECT_NE(call_a("create_pd", Json::object())["pd"], 0);
}

}  // namespace
}  // namespace mr::agent
