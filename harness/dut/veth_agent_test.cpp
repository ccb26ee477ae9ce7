// An agent with the reference backend on one end of a veth pair between two network
// namespaces, a second reference device on the other end, both on PcapLinks and real
// clocks; the harness drives the agent through DutControl over TCP on loopback.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <optional>
#include <thread>
#include <vector>

#include "harness/agent/agent_server.h"
#include "harness/agent/data_path_thread.h"
#include "harness/agent/reference_backend.h"
#include "harness/dut/dut_control.h"
#include "harness/dut/testing/tester_peer.h"
#include "reference/io/clock.h"
#include "reference/io/command.h"
#include "reference/io/namespaced_pcap_link.h"
#include "reference/io/veth_pair.h"

namespace mr::dut {
namespace {

constexpr const char* kToken = "veth-test-token";
constexpr const char* kDutMac = "02:00:00:00:00:02";
constexpr const char* kDutIp = "198.18.0.2";

agent::ReferenceBackendOptions node(uint8_t last, uint64_t seed) {
  agent::ReferenceBackendOptions o;
  o.mac = {{2, 0, 0, 0, 0, last}};
  o.ipv4 = {{198, 18, 0, last}};
  o.seed = seed;
  return o;
}

// The DUT's end, set up through the protocol: a 64 KiB region the peer may write, one CQ
// and one RC QP.
struct DutEnd {
  uint32_t cq = 0;
  uint32_t qpn = 0;
  uint32_t lkey = 0;
  uint32_t rkey = 0;
  uint64_t va = 0;
};

// The agent on mrt0: the reference backend, its data path on a thread, TCP on loopback,
// and the harness's DutControl connected to it; the tester's peer, a reference device on
// mrt1. Both ends of the veth pair are in namespaces the test creates.
class VethAgent : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root to create network namespaces";
    if (!io::run_command({"ip", "netns", "list"})) GTEST_SKIP() << "no usable `ip netns` here";
    auto veth = io::VethPair::create({.kernel_ipv6 = false});
    ASSERT_TRUE(veth) << veth.error();
    veth_.emplace(std::move(*veth));
    auto link_dut = io::open_pcap_link_in(veth_->a(), io::VethPair::kInterfaceA);
    ASSERT_TRUE(link_dut) << link_dut.error();
    link_dut_.emplace(std::move(*link_dut));
    auto link_peer = io::open_pcap_link_in(veth_->b(), io::VethPair::kInterfaceB);
    ASSERT_TRUE(link_peer) << link_peer.error();
    link_peer_.emplace(std::move(*link_peer));

    dut_.emplace(*link_dut_, clock_, node(2, 21));
    dut_pump_.emplace(*dut_);
    dispatcher_.emplace(*dut_, "reference");
    auto server =
        agent::AgentServer::listen({.port = 0, .token = kToken, .tick_ms = 20}, *dispatcher_);
    ASSERT_TRUE(server) << server.error();
    server_.emplace(std::move(*server));
    serving_ = std::thread([this] { server_->serve(stop_); });

    peer_.emplace(*link_peer_, clock_, node(1, 12));
    peer_pump_.emplace(*peer_);
    auto control = DutControl::connect("127.0.0.1", server_->port(), kToken);
    ASSERT_TRUE(control) << control.error().to_string();
    control_.emplace(std::move(*control));
    call_ = testing::control_call(*control_);
  }

  // Also after a failed step: the server's thread must not outlive the test.
  void TearDown() override {
    stop_ = true;
    if (serving_.joinable()) serving_.join();
  }

  DutEnd create_dut_end() {
    DutEnd end;
    const uint32_t pd = call_("create_pd", Json::object())["pd"];
    const Json mr = call_("reg_mr", {{"pd", pd},
                                     {"length", 65536},
                                     {"va", 0x100000},
                                     {"access", {"LOCAL_WRITE", "REMOTE_WRITE"}}});
    end.lkey = mr.value("lkey", 0U);
    end.rkey = mr.value("rkey", 0U);
    end.va = mr.value("va", uint64_t{0});
    end.cq = call_("create_cq", {{"depth", 16}})["cq"];
    end.qpn = call_("create_qp",
                    {{"pd", pd}, {"send_cq", end.cq}, {"recv_cq", end.cq}, {"type", "RC"}})["qpn"];
    return end;
  }

  // RESET -> INIT -> RTR -> RTS towards the peer's QP, PSN 0 both ways as the peer's.
  void connect_dut_end(const DutEnd& end, uint32_t peer_qpn) {
    call_("modify_qp",
          {{"qpn", end.qpn},
           {"attrs", {{"state", "INIT"}, {"pkey", 0xffff}, {"access_flags", {"REMOTE_WRITE"}}}}});
    call_("modify_qp", {{"qpn", end.qpn},
                        {"attrs",
                         {{"state", "RTR"},
                          {"path_mtu", 1024},
                          {"dest_qpn", peer_qpn},
                          {"rq_psn", 0},
                          {"max_dest_rd_atomic", 1},
                          {"min_rnr_timer", 1},
                          {"av", {{"dmac", "02:00:00:00:00:01"}, {"dip", "198.18.0.1"}}}}}});
    call_("modify_qp", {{"qpn", end.qpn},
                        {"attrs",
                         {{"state", "RTS"},
                          {"sq_psn", 0},
                          {"timeout", 14},
                          {"retry_cnt", 7},
                          {"rnr_retry", 7},
                          {"max_rd_atomic", 1}}}});
  }

  void send_hello_into_a_posted_receive(const DutEnd& dut, const testing::PeerEnd& peer);
  void write_4000_bytes_at_8192(const DutEnd& dut, const testing::PeerEnd& peer);

  std::optional<io::VethPair> veth_;
  std::optional<io::PcapLink> link_dut_;
  std::optional<io::PcapLink> link_peer_;
  io::SystemClock clock_;
  std::optional<agent::ReferenceBackend> dut_;
  std::optional<agent::DataPathThread> dut_pump_;
  std::optional<agent::RequestDispatcher> dispatcher_;
  std::optional<agent::AgentServer> server_;
  std::atomic<bool> stop_{false};
  std::thread serving_;
  std::optional<agent::ReferenceBackend> peer_;
  std::optional<agent::DataPathThread> peer_pump_;
  std::optional<DutControl> control_;
  testing::DutCall call_;
};

// SEND of "hello" from the peer into a receive buffer the DUT posted.
void VethAgent::send_hello_into_a_posted_receive(const DutEnd& dut, const testing::PeerEnd& peer) {
  call_("post_recv",
        {{"qpn", dut.qpn},
         {"wr",
          {{"wr_id", 5}, {"sg_list", {{{"addr", dut.va}, {"length", 256}, {"lkey", dut.lkey}}}}}}});
  ASSERT_TRUE(peer_->write_mem(
      {.lkey = peer.mr.lkey, .va = 0x200000, .length = 5, .data = {'h', 'e', 'l', 'l', 'o'}}));
  transport::SendWr send;
  send.wr_id = 1;
  send.sg_list = {{0x200000, 5, peer.mr.lkey}};
  ASSERT_TRUE(peer_->post_send(peer.qpn, send));
  Json recv = call_("poll_cq", {{"cq", dut.cq}, {"timeout_ms", 5000}})["completions"];
  ASSERT_EQ(recv.size(), 1U) << recv;
  EXPECT_EQ(recv[0]["status"], "SUCCESS");
  EXPECT_EQ(recv[0]["byte_len"], 5);
  EXPECT_EQ(call_("read_mem", {{"lkey", dut.lkey}, {"va", dut.va}, {"length", 5}})["data"],
            "68656c6c6f");
}

// RDMA WRITE of 4000 bytes (four packets) into the DUT's region at +8192. The peer's CQ then
// holds the SEND's completion and this WRITE's.
void VethAgent::write_4000_bytes_at_8192(const DutEnd& dut, const testing::PeerEnd& peer) {
  std::vector<uint8_t> pattern(4000);
  for (size_t i = 0; i < pattern.size(); ++i) pattern[i] = static_cast<uint8_t>(i * 13);
  ASSERT_TRUE(
      peer_->write_mem({.lkey = peer.mr.lkey, .va = 0x201000, .length = 4000, .data = pattern}));
  transport::SendWr write;
  write.wr_id = 2;
  write.opcode = transport::SendOpcode::kWrite;
  write.sg_list = {{0x201000, 4000, peer.mr.lkey}};
  write.remote_addr = dut.va + 8192;
  write.rkey = dut.rkey;
  ASSERT_TRUE(peer_->post_send(peer.qpn, write));
  std::vector<transport::Completion> done;
  for (int i = 0; i < 100 && done.size() < 2; ++i) {
    auto polled = peer_->poll_cq({.cq = peer.cq, .max = 4, .timeout_ms = 100});
    ASSERT_TRUE(polled);
    done.insert(done.end(), polled->begin(), polled->end());
  }
  ASSERT_EQ(done.size(), 2U);
  EXPECT_EQ(done[1].opcode, transport::WcOpcode::kRdmaWrite);
  EXPECT_EQ(done[1].status, transport::WcStatus::kSuccess);
  EXPECT_EQ(
      call_("read_mem", {{"lkey", dut.lkey}, {"va", dut.va + 8192}, {"length", 4000}})["data"],
      agent::to_hex(pattern));
}

TEST_F(VethAgent, RcSendAndWriteThroughTheTcpClient) {
  const DutEnd dut = create_dut_end();
  testing::PeerEnd peer;
  ASSERT_NO_FATAL_FAILURE(testing::create_peer_end(*peer_, 65536, 0x200000, peer));
  connect_dut_end(dut, peer.qpn);
  ASSERT_NO_FATAL_FAILURE(testing::connect_peer_end(*peer_, peer, dut.qpn, kDutMac, kDutIp));

  ASSERT_NO_FATAL_FAILURE(send_hello_into_a_posted_receive(dut, peer));
  ASSERT_NO_FATAL_FAILURE(write_4000_bytes_at_8192(dut, peer));
  // The SEND's packet and the WRITE's four, counted by the agent's device.
  EXPECT_GT(call_("counters", Json::object())["counters"]["rcvd_pkts"].get<uint64_t>(), 4U);
  ASSERT_TRUE(control_->call("bye"));
}

}  // namespace
}  // namespace mr::dut
