// An example for vendors who write C++ with libtins: RoCEv2 packets built as libtins stacks
// (reference/wire/tins/roce_pdus.h), sent to a device through the project's Link
// (reference/io/link.h), and the device's answers parsed back into libtins PDUs.
//
// The device is the embedded reference DUT on an in-memory link; against a real device the
// same code runs over a PcapLink on the interface cabled to it (reference/io/pcap_link.h),
// with the QP set up through the device's own API or a control agent
// (docs/dut-control-protocol.md). The reference does not speak Part II yet, so the exchange
// with it is base RoCEv2; the second test shows the Ext PDUs (MXH, SACKETH) on a Link.
//
//   bazel test //harness/dut/embedded:libtins_example_test
#include <gtest/gtest.h>
#include <tins/tins.h>

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "harness/dut/embedded/embedded_reference_dut.h"
#include "reference/io/clock.h"
#include "reference/io/link.h"
#include "reference/io/memory_link.h"
#include "reference/wire/aeth_syndrome.h"
#include "reference/wire/frame_decoder.h"
#include "reference/wire/tins/roce_pdus.h"

namespace mr {
namespace {

using wire::tins::AethPdu;
using wire::tins::BthPdu;
using wire::tins::MxhPdu;
using wire::tins::RethPdu;
using wire::tins::SackethPdu;

constexpr char kTesterMac[] = "02:00:00:00:00:01";
constexpr char kTesterIp[] = "198.18.0.1";
constexpr char kDutMac[] = "02:00:00:00:00:02";  // EmbeddedDutOptions' defaults
constexpr char kDutIp[] = "198.18.0.2";
constexpr uint32_t kTesterQpn = 0x11;  // the QP we play; it exists only in our packets

// The headers every packet to the DUT starts with.
Tins::EthernetII to_dut() {
  return Tins::EthernetII(kDutMac, kTesterMac) / Tins::IP(kDutIp, kTesterIp) /
         Tins::UDP(wire::kRoceV2Port, 0xc000);
}

// Lets the DUT handle what it was sent, moving its virtual clock, and returns what it sent
// back. (A real device needs no servicing: receive_burst with a timeout is enough.)
std::vector<io::Frame> answers_of(dut::EmbeddedReferenceDut& dut) {
  std::vector<io::Frame> answers;
  std::vector<io::Frame> burst(8);
  for (int step = 0; step < 100; ++step) {
    dut.service();
    const size_t n = dut.tester_link().receive_burst(burst, 0);
    answers.insert(answers.end(), burst.begin(), burst.begin() + static_cast<long>(n));
    const auto next = dut.next_event_ns();
    if (!next) break;
    dut.clock().set(std::max(*next, dut.clock().now_ns()));
  }
  return answers;
}

TEST(LibtinsExample, AnRdmaWriteBuiltWithLibtinsIsWrittenAndAcknowledged) {
  // The DUT: a region we may write, and an RC QP ready to receive from our QP.
  dut::EmbeddedReferenceDut dut;
  auto call = [&dut](std::string_view op, dut::Json args) {
    auto reply = dut.control().call(op, std::move(args));
    EXPECT_TRUE(reply) << op << ": " << (reply ? "" : reply.error().to_string());
    return reply ? *reply : dut::Json::object();
  };
  const uint32_t pd = call("create_pd", {})["pd"];
  const dut::Json mr =
      call("reg_mr", {{"pd", pd}, {"length", 4096}, {"access", {"LOCAL_WRITE", "REMOTE_WRITE"}}});
  const uint32_t cq = call("create_cq", {{"depth", 16}})["cq"];
  const uint32_t qpn =
      call("create_qp", {{"pd", pd}, {"send_cq", cq}, {"recv_cq", cq}, {"type", "RC"}})["qpn"];
  call("modify_qp",
       {{"qpn", qpn},
        {"attrs", {{"state", "INIT"}, {"pkey", 0xffff}, {"access_flags", {"REMOTE_WRITE"}}}}});
  call("modify_qp", {{"qpn", qpn},
                     {"attrs",
                      {{"state", "RTR"},
                       {"path_mtu", 1024},
                       {"dest_qpn", kTesterQpn},
                       {"rq_psn", 0},
                       {"max_dest_rd_atomic", 1},
                       {"min_rnr_timer", 1},
                       {"av", {{"dmac", kTesterMac}, {"dip", kTesterIp}}}}}});

  // The request: RDMA WRITE ONLY of 4 bytes at the start of the region, asking for an ACK.
  wire::Bth bth;
  bth.opcode = wire::kOpRcRdmaWriteOnly;
  bth.dqpn = qpn;
  bth.psn = 0;
  bth.ackreq = 1;
  wire::Reth reth;
  reth.va = mr["va"].get<uint64_t>();
  reth.rkey = mr["rkey"].get<uint32_t>();
  reth.dlen = 4;
  Tins::EthernetII request = to_dut() / BthPdu(bth) / RethPdu(reth) / Tins::RawPDU("data");
  auto frame = wire::tins::serialize_roce(request);  // fills in the ICRC
  ASSERT_TRUE(frame) << frame.error();

  io::Link& link = dut.tester_link();
  ASSERT_EQ(link.send_burst(std::vector{io::Frame{*frame}}), 1U);
  const std::vector<io::Frame> answers = answers_of(dut);

  // The answer, parsed by libtins: an ACK for PSN 0 to our QP.
  ASSERT_EQ(answers.size(), 1U);
  Tins::EthernetII ack(answers[0].bytes.data(), static_cast<uint32_t>(answers[0].bytes.size()));
  ASSERT_TRUE(wire::tins::attach_roce(ack));
  EXPECT_EQ(ack.rfind_pdu<Tins::IP>().src_addr(), Tins::IPv4Address(kDutIp));
  const wire::Bth& a = ack.rfind_pdu<BthPdu>().header();
  EXPECT_EQ(a.opcode, wire::kOpRcAcknowledge);
  EXPECT_EQ(a.dqpn, kTesterQpn);
  EXPECT_EQ(a.psn, 0U);
  const wire::Aeth& aeth = ack.rfind_pdu<AethPdu>().header();
  EXPECT_TRUE(wire::is_ack(aeth.syndrome)) << wire::syndrome_name(aeth.syndrome);
  EXPECT_EQ(aeth.msn, 1U);
  // And the bytes are where the RETH put them.
  EXPECT_EQ(call("read_mem", {{"lkey", mr["lkey"]}, {"va", mr["va"]}, {"length", 4}})["data"],
            "64617461");  // "data"
}

TEST(LibtinsExample, ExtPacketsCrossALinkAsBytesAndParseBackWithLibtinsAndTheCodec) {
  io::VirtualClock clock;
  io::MemoryLinkPair link(clock);  // a() and b(): two Link endpoints joined in memory

  // An Ext RDMA WRITE: the MXH under the BTH makes it TVer 1 (table 19.1: MXH, RETH).
  wire::Bth bth;
  bth.opcode = wire::kOpRcRdmaWriteOnly;
  bth.dqpn = 0x12;
  bth.psn = 7;
  wire::Mxh mxh;
  mxh.ev = 0xc005;  // the path (entropy value) the packet took
  mxh.msn = 1;
  wire::Reth reth;
  reth.va = 0x1000;
  reth.rkey = 0x5678;
  reth.dlen = 4;
  Tins::EthernetII write =
      to_dut() / BthPdu(bth) / MxhPdu(mxh) / RethPdu(reth) / Tins::RawPDU("data");
  auto frame = wire::tins::serialize_roce(write);
  ASSERT_TRUE(frame) << frame.error();
  ASSERT_EQ(link.a().send_burst(std::vector{io::Frame{*frame}}), 1U);

  std::vector<io::Frame> got(1);
  ASSERT_EQ(link.b().receive_burst(got, 0), 1U);
  // libtins' view ...
  Tins::EthernetII parsed(got[0].bytes.data(), static_cast<uint32_t>(got[0].bytes.size()));
  ASSERT_TRUE(wire::tins::attach_roce(parsed));
  EXPECT_EQ(parsed.rfind_pdu<BthPdu>().header().version, wire::kExtVersion);
  EXPECT_EQ(parsed.rfind_pdu<MxhPdu>().header().ev, 0xc005U);
  EXPECT_EQ(parsed.rfind_pdu<RethPdu>().header().rkey, 0x5678U);
  // ... and the codec's, of the same bytes.
  auto decoded = wire::decode_frame(got[0].bytes);
  ASSERT_TRUE(decoded) << decoded.error().to_string();
  const auto& roce = std::get<wire::DecodedRoce>(*decoded);
  EXPECT_TRUE(roce.icrc_ok());
  ASSERT_TRUE(roce.packet.mxh);
  EXPECT_EQ(*roce.packet.mxh, mxh);

  // The receiver's selective ACK back: PSNs 7 and 9 arrived, 8 did not. A SACKETH anywhere
  // under the BTH makes it TVer 1 too.
  wire::Bth ack_bth;
  ack_bth.opcode = wire::kOpRcAcknowledge;
  ack_bth.dqpn = 0x11;
  ack_bth.psn = 7;
  wire::Aeth aeth;
  aeth.syndrome = wire::kSyndromeAck;
  aeth.msn = 1;
  wire::Sacketh sack;
  sack.sack_ref = 7;
  sack.bitmap = 0b101;  // bit i: PSN sack_ref + sack_offset + i
  sack.ev_echo = mxh.ev;
  Tins::EthernetII ack = Tins::EthernetII(kTesterMac, kDutMac) / Tins::IP(kTesterIp, kDutIp) /
                         Tins::UDP(wire::kRoceV2Port, 0xc000) / BthPdu(ack_bth) / AethPdu(aeth) /
                         SackethPdu(sack);
  auto ack_frame = wire::tins::serialize_roce(ack);
  ASSERT_TRUE(ack_frame) << ack_frame.error();
  ASSERT_EQ(link.b().send_burst(std::vector{io::Frame{*ack_frame}}), 1U);

  ASSERT_EQ(link.a().receive_burst(got, 0), 1U);
  Tins::EthernetII back(got[0].bytes.data(), static_cast<uint32_t>(got[0].bytes.size()));
  ASSERT_TRUE(wire::tins::attach_roce(back));
  const wire::Sacketh& s = back.rfind_pdu<SackethPdu>().header();
  EXPECT_TRUE(s.acknowledges(7));
  EXPECT_FALSE(s.acknowledges(8));
  EXPECT_TRUE(s.acknowledges(9));
  EXPECT_EQ(s.ev_echo, 0xc005U);
  auto ack_decoded = wire::decode_frame(got[0].bytes);
  ASSERT_TRUE(ack_decoded) << ack_decoded.error().to_string();
  EXPECT_EQ(std::get<wire::DecodedRoce>(*ack_decoded).packet.sacketh, sack);
}

}  // namespace
}  // namespace mr
