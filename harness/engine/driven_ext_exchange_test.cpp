// Driven extension-mode exchanges against the embedded reference: a tester QP connected to an
// Ext connection is itself an Ext QP (it offers the block the DUT's QP was given in its name),
// so real, lossy Part II traffic runs both ways and a DUT that breaks a rule fails.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "harness/engine/testing/reference_run.h"
#include "reference/io/capture_reader.h"
#include "reference/wire/frame_decoder.h"

namespace mr::engine {
namespace {

constexpr const char* kHeader = "# tp: T-1\n# clause: MR-SA-01\n# purpose: p\n# pics: ext.sack\n";

report::TestResult run(const std::string& body, std::vector<std::string> mutants = {},
                       const std::string& capture = "") {
  return testing::run_on_reference(body, {.header = kHeader,
                                          .pics = {{"ext.sack", true}},
                                          .mutants = std::move(mutants),
                                          .capture_path = capture});
}

std::string failures(const report::TestResult& r) { return testing::failures_text(r); }

// 256 KiB each way with 2% loss and 1% reordering in both directions, every other frame 20 us
// late: a round trip of about 40 us, as in a small fabric.
constexpr const char* kLossyExtWrites =
    R"(dut qp A = create_qp(type=RC, mtu=1024, ext=1, mr_len=524288)
tester qp T = create_qp(mr_len=524288)
connect T A
dut fill_mem A
impair dir=both loss=2% reorder=1% delay=97% delay_us=20
dut post_send A opcode=RDMA_WRITE len=262144 remote_addr=T.va rkey=T.rkey wr_id=1
dut expect_completion A status=SUCCESS opcode=RDMA_WRITE wr_id=1
tester expect_mem T offset=0 len=262144 pattern=A
tester post_send T opcode=RDMA_WRITE len=262144 offset=262144 remote_offset=262144 wr_id=2
tester expect_completion T status=SUCCESS opcode=RDMA_WRITE wr_id=2
dut expect_mem A offset=262144 len=262144 pattern=T from=262144
)";

struct WireCount {
  size_t tester_ext_requests = 0;  // TVer 1 with an MXH
  size_t tester_base_requests = 0;
  size_t tester_credit_demands = 0;  // MXH Pending != 0: credit mode, which ext=1 did not offer
  size_t dut_sacks = 0;              // Ext ACKs and NAKs (SACKETH)
  size_t dropped = 0;
};

// Calls f(comment, packet) for every RoCEv2 frame of the capture at `path`.
template <typename F>
void for_each_roce(const std::string& path, F f) {
  auto reader = io::CaptureReader::open(path);
  ASSERT_TRUE(reader) << reader.error().to_string();
  for (int i = 0; i < 200'000; ++i) {
    auto frame = reader->next();
    ASSERT_TRUE(frame) << frame.error().to_string();
    if (!*frame) return;
    auto d = wire::decode_frame((*frame)->data);
    if (const auto* roce = d ? std::get_if<wire::DecodedRoce>(&*d) : nullptr)
      f((*frame)->comment, roce->packet);
  }
}

bool dropped_here(std::string_view comment) {
  return comment.find("impair drop") != std::string::npos;
}

WireCount count_capture(const std::string& path, uint32_t tester_ip_last_byte) {
  WireCount n;
  for_each_roce(path, [&](std::string_view comment, const wire::RocePacket& p) {
    n.dropped += dropped_here(comment) ? 1 : 0;
    const auto* ip = std::get_if<wire::Ipv4>(&p.ip);
    if (ip == nullptr) return;
    const bool from_tester = ip->src.bytes[3] == tester_ip_last_byte;
    if (from_tester && p.mxh && p.mxh->pending.value() != 0) ++n.tester_credit_demands;
    if (from_tester && p.reth)
      (p.mxh && p.bth.version == 1 ? n.tester_ext_requests : n.tester_base_requests)++;
    if (!from_tester && p.sacketh) ++n.dut_sacks;
  });
  return n;
}

TEST(DrivenExtExchange, LossyWritesEachWayLandWholeAndTheTesterSpeaksExtOnTheWire) {
  const std::string capture = ::testing::TempDir() + "/driven-ext.pcapng";
  const auto r = run(kLossyExtWrites, {}, capture);
  ASSERT_EQ(r.verdict, report::Verdict::kPass) << failures(r);
  const WireCount n = count_capture(capture, 1);  // the default PIXIT's tester is 198.18.0.1
  EXPECT_GT(n.dropped, 0U);
  EXPECT_GT(n.tester_ext_requests, 0U);
  EXPECT_EQ(n.tester_base_requests, 0U);
  // The tester's device can do every Part II feature; its QP offers only what the DUT's QP was
  // offered in its name (SACK and OOO), so it runs no credit mode the DUT did not agree.
  EXPECT_EQ(n.tester_credit_demands, 0U);
  EXPECT_GT(n.dut_sacks, 0U);
}

TEST(DrivenExtExchange, ADutThatRetransmitsSackedPsnsFailsOnTheTraceChecker) {
  const auto r = run(kLossyExtWrites, {"ext-retransmits-sacked"});
  ASSERT_EQ(r.verdict, report::Verdict::kFail) << failures(r);
  bool named = false;
  for (const auto& f : r.failures) named |= f.field == "trace MR-SA-04";
  EXPECT_TRUE(named) << failures(r);
}

TEST(DrivenExtExchange, ADutWhoseRetransmissionsLackRetxFailsOnTheTraceChecker) {
  const auto r = run(kLossyExtWrites, {"ext-retx-not-marked"});
  ASSERT_EQ(r.verdict, report::Verdict::kFail) << failures(r);
  bool named = false;
  for (const auto& f : r.failures) named |= f.field == "trace MR-SA-12";
  EXPECT_TRUE(named) << failures(r);
}

// Every DUT frame the capture shows dropped, by the EV its MXH carries; and every Ext frame
// the DUT sent, by EV.
struct DropsByEv {
  std::map<uint16_t, size_t> dropped;
  std::map<uint16_t, size_t> sent;
};

DropsByEv drops_by_ev(const std::string& path) {
  DropsByEv n;
  for_each_roce(path, [&](std::string_view comment, const wire::RocePacket& p) {
    if (!p.mxh || p.bth.dqpn.value() != 17) return;  // the tester QP's QPN: the DUT's packets
    ++(dropped_here(comment) ? n.dropped : n.sent)[p.mxh->ev.value()];
  });
  return n;
}

// A DUT WRITE over four EVs whose second EV is black-holed from the start, then healed.
constexpr const char* kBlackHoledEv =
    R"(dut qp A = create_qp(type=RC, mtu=1024, ext=1, multipath=1, mr_len=65536, ev_set=[0xc101, 0xc102, 0xc103, 0xc104])
tester qp T = create_qp(mr_len=65536)
connect T A
dut fill_mem A
impair dir=dut ev=0xc102 loss=100%
dut post_send A opcode=RDMA_WRITE len=32768 remote_addr=T.va rkey=T.rkey wr_id=1
dut expect_completion A status=SUCCESS opcode=RDMA_WRITE wr_id=1
impair off dir=dut ev=0xc102
dut post_send A opcode=RDMA_WRITE len=32768 offset=32768 remote_addr=T.va+32768 rkey=T.rkey wr_id=2
dut expect_completion A status=SUCCESS opcode=RDMA_WRITE wr_id=2
tester expect_mem T offset=0 len=65536 pattern=A
)";

TEST(DrivenExtExchange, AnImpairmentOfOneEvDropsThatEvsFramesAndNoOther) {
  const std::string capture = ::testing::TempDir() + "/black-holed-ev.pcapng";
  const auto r = run(kBlackHoledEv, {}, capture);
  ASSERT_EQ(r.verdict, report::Verdict::kPass) << failures(r);
  DropsByEv n = drops_by_ev(capture);
  ASSERT_EQ(n.dropped.size(), 1U);
  EXPECT_GT(n.dropped[0xc102], 0U);
  // Healed (impair off ev=), the entry is used again once its hold-down ends or not at all;
  // what the second WRITE sent on it was delivered either way.
  EXPECT_GT(n.sent[0xc101], 0U);
  bool noted = false;
  for (const auto& p : r.packets) noted |= p.summary.find("impairment of EV 0xc102") == 0;
  EXPECT_TRUE(noted) << "the ladder names the EV";
  // The report's per-plane view counts what the capture shows: the DUT's drops on 0xc102 only.
  size_t dut_paths = 0;
  for (const report::PathTally& p : r.paths) {
    if (p.from_tester) continue;
    ++dut_paths;
    EXPECT_EQ(p.dropped, p.ev == 0xc102 ? n.dropped[0xc102] : 0U) << p.ev;
    EXPECT_GE(p.packets, p.dropped);
  }
  EXPECT_EQ(dut_paths, 4U);
}

// mpr= sets the tester's window: its block offers it and its ACKs advertise it.
TEST(DrivenExtExchange, TheTestersWindowIsTheMprItsBlockOffered) {
  const std::string capture = ::testing::TempDir() + "/mpr1.pcapng";
  const auto r = run(R"(dut qp A = create_qp(type=RC, mtu=1024, ext=1, mpr=1, mr_len=524288)
tester qp T = create_qp(mr_len=524288)
connect T A
dut fill_mem A
impair dir=dut loss=1%
dut post_send A opcode=RDMA_WRITE len=524288 remote_addr=T.va rkey=T.rkey wr_id=1
dut expect_completion A status=SUCCESS opcode=RDMA_WRITE wr_id=1
tester expect_mem T offset=0 len=524288 pattern=A
)",
                     {}, capture);
  ASSERT_EQ(r.verdict, report::Verdict::kPass) << failures(r);
  size_t acks = 0;
  for_each_roce(capture, [&](std::string_view, const wire::RocePacket& p) {
    if (!p.sacketh || p.bth.dqpn.value() == 17) return;  // the tester's ACKs
    ++acks;
    EXPECT_EQ(p.sacketh->mpr.value(), 1U);
  });
  EXPECT_GT(acks, 0U);
  const auto bad = run("dut qp A = create_qp(type=RC, mtu=1024, ext=1, mpr=0)\n");
  EXPECT_EQ(bad.verdict, report::Verdict::kError);
  EXPECT_NE(bad.reason.find("mpr"), std::string::npos) << bad.reason;
  const auto base = run("dut qp A = create_qp(type=RC, mtu=1024, mpr=2)\n");
  EXPECT_EQ(base.verdict, report::Verdict::kError);
  EXPECT_NE(base.reason.find("mpr= is the window of the tester's ext=1 block"), std::string::npos)
      << base.reason;
}

// A secure connection (section 19.4): the tester QP gets its end of the keys, seals its own
// packets and opens the DUT's, through loss and a key rotation, so real secure traffic runs
// both ways; every packet on the wire carries a SECH.
TEST(DrivenExtExchange, ASecureConnectionCarriesLossyTrafficBothWaysAcrossARotation) {
  const std::string capture = ::testing::TempDir() + "/driven-secure.pcapng";
  const auto r = run(R"(dut qp A = create_qp(type=RC, mtu=1024, ext=1, secure=1, mr_len=262144)
tester qp T = create_qp(mr_len=262144)
connect T A
dut fill_mem A
impair dir=both loss=2%
dut post_send A opcode=RDMA_WRITE len=65536 remote_addr=T.va rkey=T.rkey wr_id=1
dut expect_completion A status=SUCCESS opcode=RDMA_WRITE wr_id=1
tester post_send T opcode=RDMA_WRITE len=65536 offset=131072 remote_offset=131072 wr_id=2
tester expect_completion T status=SUCCESS opcode=RDMA_WRITE wr_id=2
dut secure_install A epoch=2
dut secure_rotate A
dut post_send A opcode=RDMA_WRITE len=65536 offset=65536 remote_addr=T.va+65536 rkey=T.rkey wr_id=3
dut expect_completion A status=SUCCESS opcode=RDMA_WRITE wr_id=3
tester expect_mem T offset=0 len=131072 pattern=A
dut expect_mem A offset=131072 len=65536 pattern=T from=131072
)",
                     {}, capture);
  ASSERT_EQ(r.verdict, report::Verdict::kPass) << failures(r);
  size_t sealed = 0;
  size_t plain = 0;
  std::set<uint16_t> dut_epochs;
  for_each_roce(capture, [&](std::string_view, const wire::RocePacket& p) {
    if (p.bth.opcode.value() == wire::kOpCnp) return;
    ++(p.sech ? sealed : plain);
    if (p.sech && p.bth.dqpn.value() == 17) dut_epochs.insert(p.sech->epoch.value());
  });
  EXPECT_GT(sealed, 0U);
  EXPECT_EQ(plain, 0U);
  EXPECT_EQ(dut_epochs, (std::set<uint16_t>{1, 2}));
}

TEST(DrivenExtExchange, ACraftedLineOnASecureConnectionWithATesterQpIsAnErrorNamingTheLine) {
  const auto r = run(R"(dut qp A = create_qp(type=RC, mtu=1024, ext=1, secure=1)
tester qp T = create_qp()
connect T A
0 < BTH(opcode=RC_SEND_ONLY, psn=P)/MXH(msn=1)/Raw(load=b"x")
)");
  ASSERT_EQ(r.verdict, report::Verdict::kError);
  EXPECT_EQ(r.reason.rfind("t.mrt:8: secure mode: tester QP T sends on this connection", 0), 0U)
      << r.reason;
}

}  // namespace
}  // namespace mr::engine
