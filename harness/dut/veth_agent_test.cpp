// An agent with the reference backend on one end of a veth pair between two network
// namespaces, a second reference device on the other end, both on PcapLinks and real
// clocks; the harness drives the agent through DutControl over TCP on loopback.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <thread>

#include "harness/agent/agent_server.h"
#include "harness/agent/data_path_thread.h"
#include "harness/agent/reference_backend.h"
#include "harness/dut/dut_control.h"
#include "reference/io/clock.h"
#include "reference/io/command.h"
#include "reference/io/namespaced_pcap_link.h"
#include "reference/io/veth_pair.h"

namespace mr::dut {
namespace {

constexpr const char* kToken = "veth-test-token";

agent::ReferenceBackendOptions node(uint8_t last, uint64_t seed) {
  agent::ReferenceBackendOptions o;
  o.mac = {{2, 0, 0, 0, 0, last}};
  o.ipv4 = {{198, 18, 0, last}};
  o.seed = seed;
  return o;
}

TEST(VethAgent, RcSendAndWriteThroughTheTcpClient) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to create network namespaces";
  if (!io::run_command({"ip", "netns", "list"})) GTEST_SKIP() << "no usable `ip netns` here";
  auto veth = io::VethPair::create({.kernel_ipv6 = false});
  ASSERT_TRUE(veth) << veth.error();
  auto link_dut = io::open_pcap_link_in(veth->a(), io::VethPair::kInterfaceA);
  ASSERT_TRUE(link_dut) << link_dut.error();
  auto link_peer = io::open_pcap_link_in(veth->b(), io::VethPair::kInterfaceB);
  ASSERT_TRUE(link_peer) << link_peer.error();
  io::SystemClock clock;

  // The agent: reference backend on mrt0, its data path on a thread, TCP on loopback.
  agent::ReferenceBackend dut(*link_dut, clock, node(2, 21));
  agent::DataPathThread dut_pump(dut);
  agent::RequestDispatcher dispatcher(dut, "reference");
  auto server = agent::AgentServer::listen({.port = 0, .token = kToken, .tick_ms = 20}, dispatcher);
  ASSERT_TRUE(server) << server.error();
  std::atomic<bool> stop{false};
  std::thread serving([&] { server->serve(stop); });

  // The tester's peer: a reference device on mrt1.
  agent::ReferenceBackend peer(*link_peer, clock, node(1, 12));
  agent::DataPathThread peer_pump(peer);

  auto control = DutControl::connect("127.0.0.1", server->port(), kToken);
  ASSERT_TRUE(control) << control.error().to_string();
  auto call = [&](std::string_view op, Json args) {
    auto r = control->call(op, std::move(args));
    EXPECT_TRUE(r) << op << ": " << (r ? "" : r.error().to_string());
    return r ? *r : Json::object();
  };
  const uint32_t pd = call("create_pd", Json::object())["pd"];
  const Json mr = call("reg_mr", {{"pd", pd},
                                  {"length", 65536},
                                  {"va", 0x100000},
                                  {"access", {"LOCAL_WRITE", "REMOTE_WRITE"}}});
  const uint32_t cq = call("create_cq", {{"depth", 16}})["cq"];
  const uint32_t qpn =
      call("create_qp", {{"pd", pd}, {"send_cq", cq}, {"recv_cq", cq}, {"type", "RC"}})["qpn"];

  const uint32_t ppd = *peer.create_pd();
  const auto pmr = *peer.reg_mr({ppd, 65536, memory::kLocalWrite, 0x200000});
  const uint32_t pcq = *peer.create_cq(16);
  agent::CreateQpArgs init;
  init.init.pd = ppd;
  init.init.send_cq = pcq;
  init.init.recv_cq = pcq;
  const uint32_t pqpn = *peer.create_qp(init);

  call("modify_qp",
       {{"qpn", qpn},
        {"attrs", {{"state", "INIT"}, {"pkey", 0xffff}, {"access_flags", {"REMOTE_WRITE"}}}}});
  call("modify_qp", {{"qpn", qpn},
                     {"attrs",
                      {{"state", "RTR"},
                       {"path_mtu", 1024},
                       {"dest_qpn", pqpn},
                       {"rq_psn", 0},
                       {"max_dest_rd_atomic", 1},
                       {"min_rnr_timer", 1},
                       {"av", {{"dmac", "02:00:00:00:00:01"}, {"dip", "198.18.0.1"}}}}}});
  call("modify_qp", {{"qpn", qpn},
                     {"attrs",
                      {{"state", "RTS"},
                       {"sq_psn", 0},
                       {"timeout", 14},
                       {"retry_cnt", 7},
                       {"rnr_retry", 7},
                       {"max_rd_atomic", 1}}}});
  agent::ModifyQpArgs m;
  m.qpn = pqpn;
  m.attr.state = transport::QpState::kInit;
  m.mask = transport::kAttrState | transport::kAttrPkey | transport::kAttrAccessFlags;
  ASSERT_TRUE(peer.modify_qp(m));
  m.attr.state = transport::QpState::kRtr;
  m.attr.dest_qpn = qpn;
  m.mask = transport::kAttrState | transport::kAttrAddress | transport::kAttrPathMtu |
           transport::kAttrDestQpn | transport::kAttrRqPsn | transport::kAttrMaxDestRdAtomic |
           transport::kAttrMinRnrTimer;
  agent::AvArgs av;
  av.dmac = wire::MacAddress::parse("02:00:00:00:00:02");
  av.dip = *wire::Ipv4Address::parse("198.18.0.2");
  m.av = av;
  ASSERT_TRUE(peer.modify_qp(m));
  m.attr.state = transport::QpState::kRts;
  m.mask = transport::kAttrState | transport::kAttrSqPsn | transport::kAttrTimeout |
           transport::kAttrRetryCnt | transport::kAttrRnrRetry | transport::kAttrMaxRdAtomic;
  m.av.reset();
  ASSERT_TRUE(peer.modify_qp(m));

  // SEND from the peer into a receive buffer the DUT posted.
  call("post_recv",
       {{"qpn", qpn},
        {"wr",
         {{"wr_id", 5},
          {"sg_list", {{{"addr", mr["va"]}, {"length", 256}, {"lkey", mr["lkey"]}}}}}}});
  ASSERT_TRUE(peer.write_mem(
      {.lkey = pmr.lkey, .va = 0x200000, .length = 5, .data = {'h', 'e', 'l', 'l', 'o'}}));
  transport::SendWr send;
  send.wr_id = 1;
  send.sg_list = {{0x200000, 5, pmr.lkey}};
  ASSERT_TRUE(peer.post_send(pqpn, send));
  Json recv = call("poll_cq", {{"cq", cq}, {"timeout_ms", 5000}})["completions"];
  ASSERT_EQ(recv.size(), 1U) << recv;
  EXPECT_EQ(recv[0]["status"], "SUCCESS");
  EXPECT_EQ(recv[0]["byte_len"], 5);
  EXPECT_EQ(call("read_mem", {{"lkey", mr["lkey"]}, {"va", mr["va"]}, {"length", 5}})["data"],
            "68656c6c6f");

  // RDMA WRITE of 4000 bytes (four packets) into the DUT's region at +8192.
  std::vector<uint8_t> pattern(4000);
  for (size_t i = 0; i < pattern.size(); ++i) pattern[i] = static_cast<uint8_t>(i * 13);
  ASSERT_TRUE(peer.write_mem({.lkey = pmr.lkey, .va = 0x201000, .length = 4000, .data = pattern}));
  transport::SendWr write;
  write.wr_id = 2;
  write.opcode = transport::SendOpcode::kWrite;
  write.sg_list = {{0x201000, 4000, pmr.lkey}};
  write.remote_addr = mr["va"].get<uint64_t>() + 8192;
  write.rkey = mr["rkey"];
  ASSERT_TRUE(peer.post_send(pqpn, write));
  std::vector<transport::Completion> done;
  for (int i = 0; i < 100 && done.size() < 2; ++i) {
    auto polled = peer.poll_cq({.cq = pcq, .max = 4, .timeout_ms = 100});
    ASSERT_TRUE(polled);
    done.insert(done.end(), polled->begin(), polled->end());
  }
  ASSERT_EQ(done.size(), 2U);
  EXPECT_EQ(done[1].opcode, transport::WcOpcode::kRdmaWrite);
  EXPECT_EQ(done[1].status, transport::WcStatus::kSuccess);
  EXPECT_EQ(call("read_mem", {{"lkey", mr["lkey"]},
                              {"va", mr["va"].get<uint64_t>() + 8192},
                              {"length", 4000}})["data"],
            agent::to_hex(pattern));
  EXPECT_GT(call("counters", Json::object())["counters"]["rcvd_pkts"].get<uint64_t>(), 4U);
  ASSERT_TRUE(control->call("bye"));
  stop = true;
  serving.join();
}

}  // namespace
}  // namespace mr::dut
