#include "harness/agent/control_message.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "reference/memory/access.h"
#include "reference/transport/qp_state.h"

namespace mr::agent {
namespace {

template <class Op>
Op parse_as(const std::string& line) {
  auto r = parse_request_line(line);
  EXPECT_TRUE(r) << line << ": " << (r ? "" : r.error().error.to_string());
  if (!r) return Op{};
  EXPECT_TRUE(std::holds_alternative<Op>(r->op)) << line;
  return std::get<Op>(r->op);
}

TEST(ControlMessage, HelloAndEmptyOps) {
  auto hello =
      parse_as<op::Hello>(R"({"id":1,"op":"hello","token":"s3cret","protocol":1,"client":"t"})");
  EXPECT_EQ(hello.token, "s3cret");
  EXPECT_EQ(hello.protocol, 1U);
  EXPECT_EQ(hello.client, "t");
  parse_as<op::Capabilities>(R"({"id":2,"op":"capabilities"})");
  parse_as<op::CreatePd>(R"({"op":"create_pd","id":3})");
  parse_as<op::Counters>(R"({"id":4,"op":"counters"})");
  parse_as<op::Reset>(R"({"id":5,"op":"reset"})");
  parse_as<op::Bye>(R"({"id":6,"op":"bye"})");
  parse_as<op::Doctor>(R"({"id":7,"op":"doctor"})");
  auto r = parse_request_line(R"({"id":"0x10","op":"bye"})");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->id, 16U);
}

TEST(ControlMessage, RegMrWithAccessAndHexVa) {
  auto m = parse_as<op::RegMr>(
      R"({"id":1,"op":"reg_mr","pd":1,"length":4096,"access":["LOCAL_WRITE","REMOTE_READ"],"va":"0xffffffffffff0000"})");
  EXPECT_EQ(m.args.pd, 1U);
  EXPECT_EQ(m.args.length, 4096U);
  EXPECT_EQ(m.args.access, memory::kLocalWrite | memory::kRemoteRead);
  ASSERT_TRUE(m.args.va);
  EXPECT_EQ(*m.args.va, 0xffffffffffff0000ULL);  // above 2^53: why strings are accepted
}

TEST(ControlMessage, CreateQpDefaultsAndSrq) {
  auto q = parse_as<op::CreateQp>(
      R"({"id":1,"op":"create_qp","pd":1,"send_cq":2,"recv_cq":3,"srq":4,"type":"RC"})");
  EXPECT_EQ(q.args.init.send_cq, 2U);
  EXPECT_EQ(q.args.init.recv_cq, 3U);
  ASSERT_TRUE(q.args.init.srq);
  EXPECT_EQ(*q.args.init.srq, 4U);
  EXPECT_EQ(q.args.init.max_send_wr, 256U);
}

TEST(ControlMessage, UdQpQkeyAndSendDestination) {
  auto q = parse_as<op::CreateQp>(
      R"({"id":1,"op":"create_qp","pd":1,"send_cq":2,"recv_cq":2,"type":"UD"})");
  EXPECT_EQ(q.args.init.type, transport::QpType::kUd);
  auto m = parse_as<op::ModifyQp>(
      R"({"id":1,"op":"modify_qp","qpn":5,"attrs":{"state":"INIT","pkey":65535,"qkey":"0x80010000"}})");
  EXPECT_EQ(m.args.mask, transport::kAttrState | transport::kAttrPkey | transport::kAttrQkey);
  EXPECT_EQ(m.args.attr.qkey, 0x80010000U);
  auto s = parse_as<op::PostSend>(R"({"id":1,"op":"post_send","qpn":5,"wr":{"opcode":"SEND",
      "sg_list":[],"ud":{"ah":{"dip":"198.18.0.1","udp_sport":49153},"remote_qpn":17,
      "remote_qkey":"0x11223344"}}})");
  ASSERT_TRUE(s.wr.ud);
  EXPECT_EQ(s.wr.ud->remote_qpn, 17U);
  EXPECT_EQ(s.wr.ud->remote_qkey, 0x11223344U);
  EXPECT_EQ(s.wr.ud->ah.udp_sport, 49153);
  EXPECT_EQ(std::get<wire::Ipv4Address>(s.wr.ud->ah.dip).to_string(), "198.18.0.1");
  EXPECT_EQ(s.wr.ud->ah.dmac, wire::MacAddress{});  // left for the backend to look up
}

TEST(ControlMessage, ModifyQpMaskIsTheKeysPresent) {
  auto m = parse_as<op::ModifyQp>(R"({"id":1,"op":"modify_qp","qpn":4660,"attrs":{
      "state":"RTR","path_mtu":1024,"dest_qpn":"0x123456","rq_psn":0,"max_dest_rd_atomic":4,
      "min_rnr_timer":12,"access_flags":["REMOTE_WRITE","REMOTE_READ"],
      "av":{"dmac":"02:00:00:00:00:01","dip":"198.18.0.1","udp_sport":49152,"vlan_id":5}}})");
  using namespace transport;
  EXPECT_EQ(m.args.qpn, 4660U);
  EXPECT_EQ(m.args.mask, kAttrState | kAttrPathMtu | kAttrDestQpn | kAttrRqPsn |
                             kAttrMaxDestRdAtomic | kAttrMinRnrTimer | kAttrAccessFlags |
                             kAttrAddress);
  EXPECT_EQ(m.args.attr.state, QpState::kRtr);
  EXPECT_EQ(m.args.attr.dest_qpn, 0x123456U);
  EXPECT_EQ(m.args.attr.access_flags, uint32_t{kQpRemoteWrite | kQpRemoteRead});
  ASSERT_TRUE(m.args.av);
  EXPECT_EQ(m.args.av->dmac->to_string(), "02:00:00:00:00:01");
  EXPECT_EQ(m.args.av->udp_sport, 49152);
  EXPECT_EQ(m.args.av->vlan_id, 5);
  EXPECT_FALSE(m.args.av->sip);
}

// Part II: modify_qp's EV set (spec section 20.1), a plane's port, an EV's state (25.1).
TEST(ControlMessage, EvSetPortAndEvStateRequests) {
  auto m = parse_as<op::ModifyQp>(R"({"id":1,"op":"modify_qp","qpn":7,"attrs":{"state":"RTR",
      "ev_set":[{"ev":4097,"plane":0},{"ev":"0xffff","plane":15},{"ev":1,"plane":3}]}})");
  EXPECT_EQ(m.args.mask, transport::kAttrState | transport::kAttrEvSet);
  ASSERT_TRUE(m.args.attr.ev_set);
  ASSERT_EQ(m.args.attr.ev_set->size(), 3U);
  EXPECT_EQ(m.args.attr.ev_set->at(0).ev, 4097);
  EXPECT_EQ(m.args.attr.ev_set->at(1).ev, 0xffff);
  EXPECT_EQ(m.args.attr.ev_set->at(1).plane, 15);
  EXPECT_EQ(m.args.attr.ev_set->at(2).plane, 3);
  auto down = parse_as<op::SetPort>(R"({"id":2,"op":"set_port","plane":3,"up":false})");
  EXPECT_EQ(down.plane, 3);
  EXPECT_FALSE(down.up);
  EXPECT_TRUE(parse_as<op::SetPort>(R"({"id":3,"op":"set_port","plane":0,"up":true})").up);
  auto deny = parse_as<op::SetEvState>(
      R"({"id":4,"op":"set_ev_state","qpn":7,"ev":4097,"state":"DENIED"})");
  EXPECT_EQ(deny.qpn, 7U);
  EXPECT_EQ(deny.ev, 4097);
  EXPECT_FALSE(deny.allowed);
  EXPECT_TRUE(
      parse_as<op::SetEvState>(R"({"id":5,"op":"set_ev_state","qpn":7,"ev":1,"state":"GOOD"})")
          .allowed);
}

// 4,096 entries are the most a set has (section 20.1).
// Section 19.4: modify_qp's keys and the rotation request.
TEST(ControlMessage, SecureSaAndRotateRequests) {
  auto m = parse_as<op::ModifyQp>(R"({"id":1,"op":"modify_qp","qpn":7,"attrs":{"secure_sa":{
      "tx":[{"epoch":1,"key":"0001020304050607080910111213141516171819202122232425262728293031","salt":"a0a1a2a3","spi":257}],
      "rx":[{"epoch":65535,"key":"0001020304050607080910111213141516171819202122232425262728293031","salt":"B0B1B2B3","spi":"0x202"}],
      "rekey_packets":16},"secure_rotate":true}})");
  EXPECT_EQ(m.args.mask, transport::kAttrSecureSa | transport::kAttrSecureRotate);
  ASSERT_TRUE(m.args.attr.secure_sa);
  const auto& sas = *m.args.attr.secure_sa;
  ASSERT_EQ(sas.tx.size(), 1U);
  ASSERT_EQ(sas.rx.size(), 1U);
  EXPECT_EQ(sas.tx[0].epoch, 1);
  EXPECT_EQ(sas.tx[0].spi, 257U);
  EXPECT_EQ(sas.tx[0].key[31], 0x31);
  EXPECT_EQ(sas.tx[0].salt[3], 0xa3);
  EXPECT_EQ(sas.rx[0].epoch, 65535);
  EXPECT_EQ(sas.rx[0].spi, 0x202U);
  EXPECT_EQ(sas.rx[0].salt[0], 0xb0);
  EXPECT_EQ(sas.rekey_packets, 16U);
}

TEST(ControlMessage, AnEvSetHoldsAtMost4096Entries) {
  std::string set;
  for (int i = 1; i <= 4097; ++i) {
    if (i > 1) set += ",";
    set += R"({"ev":)" + std::to_string(i) + R"(,"plane":0})";
  }
  const std::string head = R"({"id":1,"op":"modify_qp","qpn":7,"attrs":{"ev_set":[)";
  auto full = parse_request_line(head + set.substr(0, set.rfind(",{")) + "]}}");
  ASSERT_TRUE(full) << full.error().error.to_string();
  EXPECT_EQ(std::get<op::ModifyQp>(full->op).args.attr.ev_set->size(), 4096U);
  auto over = parse_request_line(head + set + "]}}");
  ASSERT_FALSE(over);
  EXPECT_EQ(over.error().error.field, "attrs.ev_set");
}

TEST(ControlMessage, PostSendEveryField) {
  auto p = parse_as<op::PostSend>(R"({"id":9,"op":"post_send","qpn":77,"wr":{
      "wr_id":"18446744073709551615","opcode":"ATOMIC_CMP_AND_SWP",
      "sg_list":[{"addr":"0x1000","length":8,"lkey":5}],"signaled":false,"solicited":true,
      "remote_addr":4096,"rkey":6,"compare_add":1,"swap":"0x2"}})");
  EXPECT_EQ(p.qpn, 77U);
  EXPECT_EQ(p.wr.wr_id, 0xffffffffffffffffULL);
  EXPECT_EQ(p.wr.opcode, transport::SendOpcode::kCompareSwap);
  ASSERT_EQ(p.wr.sg_list.size(), 1U);
  EXPECT_EQ(p.wr.sg_list[0].addr, 0x1000U);
  EXPECT_FALSE(p.wr.signaled);
  EXPECT_TRUE(p.wr.solicited);
  EXPECT_EQ(p.wr.rkey, 6U);
  EXPECT_EQ(p.wr.swap, 2U);
}

TEST(ControlMessage, MemoryOpsAndPolling) {
  auto w =
      parse_as<op::WriteMem>(R"({"id":1,"op":"write_mem","lkey":3,"va":4096,"data":"00ffA0"})");
  EXPECT_EQ(w.args.data, (std::vector<uint8_t>{0x00, 0xff, 0xa0}));
  auto r = parse_as<op::ReadMem>(R"({"id":1,"op":"read_mem","lkey":3,"va":4096,"length":3})");
  EXPECT_EQ(r.args.length, 3U);
  auto p = parse_as<op::PollCq>(R"({"id":1,"op":"poll_cq","cq":1,"max":4,"timeout_ms":100})");
  EXPECT_EQ(p.args.max, 4U);
  EXPECT_EQ(p.args.timeout_ms, 100U);
  auto d = parse_as<op::Destroy>(R"({"id":1,"op":"destroy","kind":"srq","handle":2})");
  EXPECT_EQ(d.kind, ObjectKind::kSrq);
  auto s = parse_as<op::SetMutants>(R"({"id":1,"op":"set_mutants","enable":["a","b"]})");
  EXPECT_EQ(s.enable.size(), 2U);
}

struct Bad {
  const char* line;
  ErrorCode code;
  const char* field;
};

// Each line of a table is refused with its code, naming its field, with a message.
void expect_refused(const std::vector<Bad>& table) {
  for (const Bad& bad : table) {
    auto r = parse_request_line(bad.line);
    ASSERT_FALSE(r) << bad.line;
    EXPECT_EQ(r.error().error.code, bad.code) << bad.line << " -> " << r.error().error.to_string();
    EXPECT_EQ(r.error().error.field, bad.field)
        << bad.line << " -> " << r.error().error.to_string();
    EXPECT_FALSE(r.error().error.message.empty()) << bad.line;
  }
}

// Not a JSON object, or no id that reads as an unsigned 64-bit integer: EPROTO, as the
// reply cannot name the request it answers.
const std::vector<Bad> kNoRequest = {
    {"", ErrorCode::kEproto, ""},
    {"not json", ErrorCode::kEproto, ""},
    {"{", ErrorCode::kEproto, ""},
    {"[1,2]", ErrorCode::kEproto, ""},
    {"42", ErrorCode::kEproto, ""},
    {"\"hello\"", ErrorCode::kEproto, ""},
    {"null", ErrorCode::kEproto, ""},
    {R"({"op":"create_pd"})", ErrorCode::kEproto, "id"},
    {R"({"id":-1,"op":"create_pd"})", ErrorCode::kEproto, "id"},
    {R"({"id":1.5,"op":"create_pd"})", ErrorCode::kEproto, "id"},
    {R"({"id":"x","op":"create_pd"})", ErrorCode::kEproto, "id"},
    {R"({"id":true,"op":"create_pd"})", ErrorCode::kEproto, "id"},
    {R"({"id":1e300,"op":"create_pd"})", ErrorCode::kEproto, "id"},
    {R"({"id":184467440737095516160,"op":"create_pd"})", ErrorCode::kEproto, "id"},
    {R"({"id":"0x1ffffffffffffffff","op":"create_pd"})", ErrorCode::kEproto, "id"},
};

// No op, an op that is not a string or not one the agent has, a member the op does not take.
const std::vector<Bad> kBadOps = {
    {R"({"id":1})", ErrorCode::kEinval, "op"},
    {R"({"id":1,"op":7})", ErrorCode::kEinval, "op"},
    {R"({"id":1,"op":"format_disk"})", ErrorCode::kEnotsup, "op"},
    {R"({"id":1,"op":"create_pd","extra":1})", ErrorCode::kEinval, "extra"},
};

// hello and the ops that create objects: a missing, mistyped or out-of-range argument.
const std::vector<Bad> kBadCreateArgs = {
    {R"({"id":1,"op":"hello","protocol":1})", ErrorCode::kEinval, "token"},
    {R"({"id":1,"op":"hello","token":5,"protocol":1})", ErrorCode::kEinval, "token"},
    {R"({"id":1,"op":"reg_mr","length":4096})", ErrorCode::kEinval, "pd"},
    {R"({"id":1,"op":"reg_mr","pd":1,"length":4294967297})", ErrorCode::kEinval, "length"},
    {R"({"id":1,"op":"reg_mr","pd":1,"length":4096,"access":["WRITE_ALL"]})", ErrorCode::kEinval,
     "access[0]"},
    {R"({"id":1,"op":"reg_mr","pd":1,"length":4096,"access":"LOCAL_WRITE"})", ErrorCode::kEinval,
     "access"},
    {R"({"id":1,"op":"reg_mr","pd":"0xzz","length":1})", ErrorCode::kEinval, "pd"},
    {R"({"id":1,"op":"reg_mr","pd":4294967296,"length":1})", ErrorCode::kEinval, "pd"},
    {R"({"id":1,"op":"create_cq","depth":0})", ErrorCode::kEinval, "depth"},
    {R"({"id":1,"op":"create_cq","depth":2000000})", ErrorCode::kEinval, "depth"},
    {R"({"id":1,"op":"create_cq","depth":null})", ErrorCode::kEinval, "depth"},
    {R"({"id":1,"op":"create_srq","max_wr":[1]})", ErrorCode::kEinval, "max_wr"},
    {R"({"id":1,"op":"create_qp","pd":1,"send_cq":1,"recv_cq":1,"type":"XRC"})", ErrorCode::kEinval,
     "type"},
    {R"({"id":1,"op":"create_qp","pd":1,"send_cq":1,"type":"RC"})", ErrorCode::kEinval, "recv_cq"},
    {R"({"id":1,"op":"create_qp","pd":1,"send_cq":1,"recv_cq":1,"type":"RC","max_send_wr":0})",
     ErrorCode::kEinval, "max_send_wr"},
};

// modify_qp: the QP, the attributes, and the address vector inside them, by path.
const std::vector<Bad> kBadModifyQp = {
    {R"({"id":1,"op":"modify_qp","qpn":1,"attrs":{"qkey":4294967296}})", ErrorCode::kEinval,
     "attrs.qkey"},
    {R"({"id":1,"op":"modify_qp","qpn":1})", ErrorCode::kEinval, "attrs"},
    {R"({"id":1,"op":"modify_qp","qpn":1,"attrs":{}})", ErrorCode::kEinval, "attrs"},
    {R"({"id":1,"op":"modify_qp","qpn":16777216,"attrs":{"state":"INIT"}})", ErrorCode::kEinval,
     "qpn"},
    {R"({"id":1,"op":"modify_qp","qpn":1,"attrs":{"state":"READY"}})", ErrorCode::kEinval,
     "attrs.state"},
    {R"({"id":1,"op":"modify_qp","qpn":1,"attrs":{"path_mtu":1500}})", ErrorCode::kEinval,
     "attrs.path_mtu"},
    {R"({"id":1,"op":"modify_qp","qpn":1,"attrs":{"path_mtu":8192}})", ErrorCode::kEinval,
     "attrs.path_mtu"},
    {R"({"id":1,"op":"modify_qp","qpn":1,"attrs":{"retry_cnt":8}})", ErrorCode::kEinval,
     "attrs.retry_cnt"},
    {R"({"id":1,"op":"modify_qp","qpn":1,"attrs":{"timeout":32}})", ErrorCode::kEinval,
     "attrs.timeout"},
    {R"({"id":1,"op":"modify_qp","qpn":1,"attrs":{"sq_psn":16777216}})", ErrorCode::kEinval,
     "attrs.sq_psn"},
    {R"({"id":1,"op":"modify_qp","qpn":1,"attrs":{"pkey":65536}})", ErrorCode::kEinval,
     "attrs.pkey"},
    {R"({"id":1,"op":"modify_qp","qpn":1,"attrs":{"colour":"red"}})", ErrorCode::kEinval,
     "attrs.colour"},
    {R"({"id":1,"op":"modify_qp","qpn":1,"attrs":{"access_flags":["MW_BIND"]}})",
     ErrorCode::kEinval, "attrs.access_flags[0]"},
    {R"({"id":1,"op":"modify_qp","qpn":1,"attrs":{"av":{"dip":"198.18.0.300"}}})",
     ErrorCode::kEinval, "attrs.av.dip"},
    {R"({"id":1,"op":"modify_qp","qpn":1,"attrs":{"av":{"dip":"198.18.0.1","dmac":"02:00"}}})",
     ErrorCode::kEinval, "attrs.av.dmac"},
    {R"({"id":1,"op":"modify_qp","qpn":1,"attrs":{"av":{"dip":"198.18.0.1","sip":"fe80::1"}}})",
     ErrorCode::kEinval, "attrs.av.sip"},
    {R"({"id":1,"op":"modify_qp","qpn":1,"attrs":{"av":{"dip":"198.18.0.1","vlan_id":4095}}})",
     ErrorCode::kEinval, "attrs.av.vlan_id"},
    {R"({"id":1,"op":"modify_qp","qpn":1,"attrs":{"av":{"dip":"198.18.0.1","flow_label":1048576}}})",
     ErrorCode::kEinval, "attrs.av.flow_label"},
    {R"({"id":1,"op":"modify_qp","qpn":1,"attrs":{"av":{"dip":"198.18.0.1","ttl":3}}})",
     ErrorCode::kEinval, "attrs.av.ttl"},
    {R"({"id":1,"op":"modify_qp","qpn":1,"attrs":{"av":[]}})", ErrorCode::kEinval, "attrs.av"},
};

// Part II: the EV set entry at fault, a plane's port, an EV's state.
const std::vector<Bad> kBadPart2 = {
    {R"({"id":1,"op":"modify_qp","qpn":1,"attrs":{"secure_sa":{"tx":[{"epoch":1,"key":"0011",
      "salt":"a0a1a2a3","spi":1}]}}})",
     ErrorCode::kEinval, "attrs.secure_sa.tx[0].key"},
    {R"({"id":1,"op":"modify_qp","qpn":1,"attrs":{"secure_sa":{"rx":[{"epoch":1,"key":"0001020304050607080910111213141516171819202122232425262728293031",
      "salt":"a0a1","spi":1}]}}})",
     ErrorCode::kEinval, "attrs.secure_sa.rx[0].salt"},
    {R"({"id":1,"op":"modify_qp","qpn":1,"attrs":{"secure_sa":{"tx":[{"epoch":65536,"key":"0001020304050607080910111213141516171819202122232425262728293031",
      "salt":"a0a1a2a3","spi":1}]}}})",
     ErrorCode::kEinval, "attrs.secure_sa.tx[0].epoch"},
    {R"({"id":1,"op":"modify_qp","qpn":1,"attrs":{"secure_sa":{"tx":[{"epoch":1,"key":"0001020304050607080910111213141516171819202122232425262728293031",
      "salt":"a0a1a2a3","spi":1},{"epoch":1,"key":"0001020304050607080910111213141516171819202122232425262728293031","salt":"a0a1a2a3","spi":2}]}}})",
     ErrorCode::kEinval, "attrs.secure_sa.tx[1].epoch"},
    {R"({"id":1,"op":"modify_qp","qpn":1,"attrs":{"secure_sa":{"tx":[],"rekey_packets":15}}})",
     ErrorCode::kEinval, "attrs.secure_sa.rekey_packets"},
    {R"({"id":1,"op":"modify_qp","qpn":1,"attrs":{"secure_sa":{"tx":[],"keys":1}}})",
     ErrorCode::kEinval, "attrs.secure_sa.keys"},
    {R"({"id":1,"op":"modify_qp","qpn":1,"attrs":{"secure_rotate":1}})", ErrorCode::kEinval,
     "attrs.secure_rotate"},
    {R"({"id":1,"op":"modify_qp","qpn":1,"attrs":{"ev_set":{}}})", ErrorCode::kEinval,
     "attrs.ev_set"},
    {R"({"id":1,"op":"modify_qp","qpn":1,"attrs":{"ev_set":[]}})", ErrorCode::kEinval,
     "attrs.ev_set"},
    {R"({"id":1,"op":"modify_qp","qpn":1,"attrs":{"ev_set":[5]}})", ErrorCode::kEinval,
     "attrs.ev_set[0]"},
    {R"({"id":1,"op":"modify_qp","qpn":1,"attrs":{"ev_set":[{"ev":0,"plane":0}]}})",
     ErrorCode::kEinval, "attrs.ev_set[0].ev"},
    {R"({"id":1,"op":"modify_qp","qpn":1,"attrs":{"ev_set":[{"ev":65536,"plane":0}]}})",
     ErrorCode::kEinval, "attrs.ev_set[0].ev"},
    {R"({"id":1,"op":"modify_qp","qpn":1,"attrs":{"ev_set":[{"ev":1,"plane":0},{"ev":2,"plane":16}]}})",
     ErrorCode::kEinval, "attrs.ev_set[1].plane"},
    {R"({"id":1,"op":"modify_qp","qpn":1,"attrs":{"ev_set":[{"ev":1}]}})", ErrorCode::kEinval,
     "attrs.ev_set[0].plane"},
    {R"({"id":1,"op":"modify_qp","qpn":1,"attrs":{"ev_set":[{"ev":1,"plane":0,"state":"GOOD"}]}})",
     ErrorCode::kEinval, "attrs.ev_set[0].state"},
    {R"({"id":1,"op":"modify_qp","qpn":1,"attrs":{"ev_set":[{"ev":9,"plane":0},{"ev":8,"plane":1},{"ev":9,"plane":2}]}})",
     ErrorCode::kEinval, "attrs.ev_set[2].ev"},
    {R"({"id":1,"op":"set_port","up":false})", ErrorCode::kEinval, "plane"},
    {R"({"id":1,"op":"set_port","plane":16,"up":false})", ErrorCode::kEinval, "plane"},
    {R"({"id":1,"op":"set_port","plane":1})", ErrorCode::kEinval, "up"},
    {R"({"id":1,"op":"set_port","plane":1,"up":"down"})", ErrorCode::kEinval, "up"},
    {R"({"id":1,"op":"set_port","plane":1,"up":true,"qpn":7})", ErrorCode::kEinval, "qpn"},
    {R"({"id":1,"op":"set_ev_state","ev":1,"state":"DENIED"})", ErrorCode::kEinval, "qpn"},
    {R"({"id":1,"op":"set_ev_state","qpn":16777216,"ev":1,"state":"DENIED"})", ErrorCode::kEinval,
     "qpn"},
    {R"({"id":1,"op":"set_ev_state","qpn":7,"ev":0,"state":"DENIED"})", ErrorCode::kEinval, "ev"},
    {R"({"id":1,"op":"set_ev_state","qpn":7,"ev":65536,"state":"DENIED"})", ErrorCode::kEinval,
     "ev"},
    {R"({"id":1,"op":"set_ev_state","qpn":7,"ev":1,"state":"ASSUMED_BAD"})", ErrorCode::kEinval,
     "state"},
    {R"({"id":1,"op":"set_ev_state","qpn":7,"ev":1,"state":"denied"})", ErrorCode::kEinval,
     "state"},
    {R"({"id":1,"op":"set_ev_state","qpn":7,"ev":1})", ErrorCode::kEinval, "state"},
};

// post_send, post_recv and post_srq_recv: the work request and its parts, by path.
const std::vector<Bad> kBadWorkRequests = {
    {R"({"id":1,"op":"post_send","qpn":1,"wr":{"opcode":"SEND","sg_list":[],"ud":{"remote_qpn":1,"remote_qkey":1}}})",
     ErrorCode::kEinval, "wr.ud.ah"},
    {R"({"id":1,"op":"post_send","qpn":1,"wr":{"opcode":"SEND","sg_list":[],"ud":{"ah":{"dip":"198.18.0.1"},"remote_qpn":16777216,"remote_qkey":1}}})",
     ErrorCode::kEinval, "wr.ud.remote_qpn"},
    {R"({"id":1,"op":"post_send","qpn":1,"wr":{"opcode":"SEND","sg_list":[],"ud":{"ah":{"dip":"198.18.0.1"},"remote_qpn":1}}})",
     ErrorCode::kEinval, "wr.ud.remote_qkey"},
    {R"({"id":1,"op":"post_send","qpn":1})", ErrorCode::kEinval, "wr"},
    {R"({"id":1,"op":"post_send","qpn":1,"wr":{"sg_list":[]}})", ErrorCode::kEinval, "wr.opcode"},
    {R"({"id":1,"op":"post_send","qpn":1,"wr":{"opcode":"SEND"}})", ErrorCode::kEinval,
     "wr.sg_list"},
    {R"({"id":1,"op":"post_send","qpn":1,"wr":{"opcode":"JUMP","sg_list":[]}})", ErrorCode::kEinval,
     "wr.opcode"},
    {R"({"id":1,"op":"post_send","qpn":1,"wr":{"opcode":"SEND","sg_list":[{"addr":1,"length":1}]}})",
     ErrorCode::kEinval, "wr.sg_list[0].lkey"},
    {R"({"id":1,"op":"post_send","qpn":1,"wr":{"opcode":"SEND","sg_list":[{"addr":1,"length":1,"lkey":1,"x":0}]}})",
     ErrorCode::kEinval, "wr.sg_list[0].x"},
    {R"({"id":1,"op":"post_send","qpn":1,"wr":{"opcode":"SEND","sg_list":[1]}})",
     ErrorCode::kEinval, "wr.sg_list[0]"},
    {R"({"id":1,"op":"post_send","qpn":1,"wr":{"opcode":"SEND","sg_list":[],"signaled":1}})",
     ErrorCode::kEinval, "wr.signaled"},
    {R"({"id":1,"op":"post_send","qpn":1,"wr":{"opcode":"SEND","sg_list":[],"imm_data":4294967296}})",
     ErrorCode::kEinval, "wr.imm_data"},
    {R"({"id":1,"op":"post_send","qpn":1,"wr":{"opcode":"SEND","sg_list":[],"wr_id":-5}})",
     ErrorCode::kEinval, "wr.wr_id"},
    {R"({"id":1,"op":"post_send","qpn":1,"wr":{"opcode":"SEND","sg_list":[],"remote_addr":1.0}})",
     ErrorCode::kEinval, "wr.remote_addr"},
    {R"({"id":1,"op":"post_send","qpn":1,"wr":{"opcode":"SEND","sg_list":[
        {"addr":0,"length":1,"lkey":1},{"addr":0,"length":1,"lkey":1},{"addr":0,"length":1,"lkey":1},
        {"addr":0,"length":1,"lkey":1},{"addr":0,"length":1,"lkey":1},{"addr":0,"length":1,"lkey":1},
        {"addr":0,"length":1,"lkey":1},{"addr":0,"length":1,"lkey":1},{"addr":0,"length":1,"lkey":1},
        {"addr":0,"length":1,"lkey":1},{"addr":0,"length":1,"lkey":1},{"addr":0,"length":1,"lkey":1},
        {"addr":0,"length":1,"lkey":1},{"addr":0,"length":1,"lkey":1},{"addr":0,"length":1,"lkey":1},
        {"addr":0,"length":1,"lkey":1},{"addr":0,"length":1,"lkey":1}]}})",
     ErrorCode::kEinval, "wr.sg_list"},
    {R"({"id":1,"op":"post_recv","qpn":1,"wr":{"sg_list":[],"opcode":"SEND"}})", ErrorCode::kEinval,
     "wr.opcode"},
    {R"({"id":1,"op":"post_srq_recv","wr":{"sg_list":[]}})", ErrorCode::kEinval, "srq"},
};

// Polling, memory, destroy and mutants, and a member given to an op that takes none.
const std::vector<Bad> kBadOtherArgs = {
    {R"({"id":1,"op":"poll_cq","cq":1,"timeout_ms":10001})", ErrorCode::kEinval, "timeout_ms"},
    {R"({"id":1,"op":"poll_cq","cq":1,"max":0})", ErrorCode::kEinval, "max"},
    {R"({"id":1,"op":"poll_cq","cq":1,"max":100000})", ErrorCode::kEinval, "max"},
    {R"({"id":1,"op":"req_notify_cq","cq":1,"solicited_only":"yes"})", ErrorCode::kEinval,
     "solicited_only"},
    {R"({"id":1,"op":"read_mem","lkey":1,"va":0,"length":262145})", ErrorCode::kEinval, "length"},
    {R"({"id":1,"op":"write_mem","lkey":1,"va":0,"data":"abc"})", ErrorCode::kEinval, "data"},
    {R"({"id":1,"op":"write_mem","lkey":1,"va":0,"data":"zz"})", ErrorCode::kEinval, "data"},
    {R"({"id":1,"op":"write_mem","lkey":1,"va":0})", ErrorCode::kEinval, "data"},
    {R"({"id":1,"op":"write_mem","lkey":1,"va":0,"data":[1,2]})", ErrorCode::kEinval, "data"},
    {R"({"id":1,"op":"destroy","kind":"universe","handle":1})", ErrorCode::kEinval, "kind"},
    {R"({"id":1,"op":"destroy","kind":"qp"})", ErrorCode::kEinval, "handle"},
    {R"({"id":1,"op":"set_mutants","enable":[1]})", ErrorCode::kEinval, "enable[0]"},
    {R"({"id":1,"op":"set_mutants","enable":"all"})", ErrorCode::kEinval, "enable"},
    {R"({"id":1,"op":"capabilities","verbose":true})", ErrorCode::kEinval, "verbose"},
    {R"({"id":1,"op":"doctor","root":"/etc"})", ErrorCode::kEinval, "root"},
};

TEST(ControlMessage, ALineThatIsNoObjectOrHasNoReadableIdIsEproto) { expect_refused(kNoRequest); }

TEST(ControlMessage, AMissingOrUnknownOpOrMemberIsRefusedNamingIt) { expect_refused(kBadOps); }

TEST(ControlMessage, BadHelloAndCreateArgumentsAreRefusedNamingTheField) {
  expect_refused(kBadCreateArgs);
}

TEST(ControlMessage, BadModifyQpAttributesAreRefusedNamingTheirPath) {
  expect_refused(kBadModifyQp);
}

TEST(ControlMessage, BadPart2RequestsAreRefusedNamingTheField) { expect_refused(kBadPart2); }

TEST(ControlMessage, BadWorkRequestsAreRefusedNamingTheirPath) { expect_refused(kBadWorkRequests); }

TEST(ControlMessage, BadPollMemoryAndHousekeepingArgumentsAreRefusedNamingTheField) {
  expect_refused(kBadOtherArgs);
}

// A guard against cases lost in an edit of the tables.
TEST(ControlMessage, TheRefusalTablesHoldAtLeastSixtyMessages) {
  size_t messages = 0;
  for (const auto* table : {&kNoRequest, &kBadOps, &kBadCreateArgs, &kBadModifyQp, &kBadPart2,
                            &kBadWorkRequests, &kBadOtherArgs}) {
    messages += table->size();
  }
  ASSERT_GE(messages, 60U);
}

TEST(ControlMessage, ErrorsKeepTheIdWhenItWasReadable) {
  auto r = parse_request_line(R"({"id":41,"op":"create_cq","depth":0})");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().id, 41U);
  auto no_id = parse_request_line(R"({"op":"create_cq","depth":1})");
  ASSERT_FALSE(no_id);
  EXPECT_FALSE(no_id.error().id);
}

TEST(ControlMessage, AMemberNamedTwiceIsRefusedNamingItWithTheId) {
  for (const auto& [line, field] : std::vector<std::pair<std::string, std::string>>{
           {R"({"id":3,"op":"create_pd","op":"reset"})", "op"},
           {R"({"id":3,"op":"reset","op":"create_pd"})", "op"},
           {R"({"id":3,"op":"create_cq","depth":1,"depth":2})", "depth"},
           {R"({"id":3,"op":"modify_qp","qpn":1,"attrs":{"state":"RTR","av":{"dip":"198.18.0.1",)"
            R"("dip":"198.18.0.9"}}})",
            "attrs.av.dip"},
           {R"({"id":3,"op":"post_recv","qpn":1,"wr":{"sg_list":[{"addr":0,"length":1,"lkey":1},)"
            R"({"addr":0,"length":1,"lkey":1,"lkey":2}]}})",
            "wr.sg_list[1].lkey"},
       }) {
    auto r = parse_request_line(line);
    ASSERT_FALSE(r) << line;
    EXPECT_EQ(r.error().id, 3U) << line;
    EXPECT_EQ(r.error().error.code, ErrorCode::kEinval) << line;
    EXPECT_EQ(r.error().error.field, field) << line;
  }
}

TEST(ControlMessage, ADuplicatedIdIsNoReadableId) {
  auto r = parse_request_line(R"({"id":3,"id":4,"op":"create_pd"})");
  ASSERT_FALSE(r);
  EXPECT_FALSE(r.error().id);
  EXPECT_EQ(r.error().error.code, ErrorCode::kEproto);
  EXPECT_EQ(r.error().error.field, "id");
}

TEST(ControlMessage, HostileShapesAreRefusedCheaply) {
  const std::string deep = std::string(100'000, '[') + std::string(100'000, ']');
  auto r = parse_json_line(deep);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kEproto);
  const std::string huge = "{\"id\":1,\"op\":\"" + std::string(kMaxLineBytes, 'a') + "\"}";
  auto h = parse_json_line(huge);
  ASSERT_FALSE(h);
  EXPECT_EQ(h.error().code, ErrorCode::kEproto);
  auto bad_utf8 = parse_json_line("{\"id\":1,\"op\":\"\xff\xfe\"}");
  ASSERT_FALSE(bad_utf8);
  // Brackets inside strings do not count as nesting.
  EXPECT_TRUE(parse_json_line(R"({"id":1,"op":"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["})"));
}

}  // namespace
}  // namespace mr::agent
