#include "harness/agent/verbs_mapping.h"

#include <endian.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>

namespace mr::agent {
namespace {

using transport::QpState;
using transport::SendOpcode;
using transport::WcOpcode;
using transport::WcStatus;

wire::Ipv4Address v4(const char* text) { return *wire::Ipv4Address::parse(text); }
wire::Ipv6Address v6(const char* text) { return *wire::Ipv6Address::parse(text); }

TEST(VerbsMapping, ErrnoNamesAndCodes) {
  EXPECT_EQ(errno_name(EINVAL), "EINVAL");
  EXPECT_EQ(errno_name(ETIMEDOUT), "ETIMEDOUT");
  EXPECT_EQ(errno_name(99999), "errno 99999");
  EXPECT_EQ(error_code_for_errno(EINVAL), ErrorCode::kEinval);
  EXPECT_EQ(error_code_for_errno(ENOENT), ErrorCode::kEnoent);
  EXPECT_EQ(error_code_for_errno(EBUSY), ErrorCode::kEbusy);
  EXPECT_EQ(error_code_for_errno(EACCES), ErrorCode::kEperm);
  EXPECT_EQ(error_code_for_errno(ENOMEM), ErrorCode::kEnospc);
  EXPECT_EQ(error_code_for_errno(ETIMEDOUT), ErrorCode::kEtimedout);
  EXPECT_EQ(error_code_for_errno(EOPNOTSUPP), ErrorCode::kEnotsup);
  EXPECT_EQ(error_code_for_errno(EIO), ErrorCode::kEinval);
}

TEST(VerbsMapping, VerbsErrorNamesCallErrnoAndDetail) {
  const ControlError e = verbs_error("ibv_modify_qp", EINVAL, "attrs.state RTR", "attrs");
  EXPECT_EQ(e.code, ErrorCode::kEinval);
  EXPECT_EQ(e.message, "ibv_modify_qp: EINVAL (attrs.state RTR)");
  EXPECT_EQ(e.field, "attrs");
  EXPECT_EQ(verbs_error("ibv_alloc_pd", ENOMEM).message, "ibv_alloc_pd: ENOMEM");
  EXPECT_EQ(verbs_error("ibv_alloc_pd", ENOMEM).code, ErrorCode::kEnospc);
}

TEST(VerbsMapping, QpStatesRoundTrip) {
  const std::pair<QpState, ibv_qp_state> pairs[] = {
      {QpState::kReset, IBV_QPS_RESET}, {QpState::kInit, IBV_QPS_INIT},
      {QpState::kRtr, IBV_QPS_RTR},     {QpState::kRts, IBV_QPS_RTS},
      {QpState::kSqd, IBV_QPS_SQD},     {QpState::kError, IBV_QPS_ERR}};
  for (const auto& [ours, theirs] : pairs) {
    EXPECT_EQ(to_ibv(ours), theirs);
    EXPECT_EQ(from_ibv(theirs), ours);
  }
  EXPECT_EQ(from_ibv(IBV_QPS_SQE), QpState::kError);
}

TEST(VerbsMapping, Mtus) {
  EXPECT_EQ(mtu_to_ibv(256), IBV_MTU_256);
  EXPECT_EQ(mtu_to_ibv(1024), IBV_MTU_1024);
  EXPECT_EQ(mtu_to_ibv(4096), IBV_MTU_4096);
  EXPECT_FALSE(mtu_to_ibv(1500));
  EXPECT_EQ(mtu_bytes(IBV_MTU_2048), 2048U);
  EXPECT_EQ(mtu_bytes(IBV_MTU_512), 512U);
}

TEST(VerbsMapping, AttrMaskBits) {
  EXPECT_EQ(to_ibv_attr_mask(transport::kAttrState, false), IBV_QP_STATE);
  EXPECT_EQ(to_ibv_attr_mask(
                transport::kAttrState | transport::kAttrPkey | transport::kAttrAccessFlags, true),
            IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_ACCESS_FLAGS | IBV_QP_PORT);
  EXPECT_EQ(to_ibv_attr_mask(transport::kAttrAddress | transport::kAttrPathMtu |
                                 transport::kAttrDestQpn | transport::kAttrRqPsn |
                                 transport::kAttrMaxDestRdAtomic | transport::kAttrMinRnrTimer,
                             false),
            IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
  EXPECT_EQ(
      to_ibv_attr_mask(transport::kAttrSqPsn | transport::kAttrTimeout | transport::kAttrRetryCnt |
                           transport::kAttrRnrRetry | transport::kAttrMaxRdAtomic,
                       false),
      IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
          IBV_QP_MAX_QP_RD_ATOMIC);
  EXPECT_EQ(to_ibv_attr_mask(0, false), 0);
}

TEST(VerbsMapping, ResetToInitCarriesPortAndPkeyIndex) {
  ModifyQpArgs args;
  args.attr.state = QpState::kInit;
  args.attr.pkey = 0xffff;
  args.attr.access_flags = transport::kQpRemoteWrite | transport::kQpRemoteRead;
  args.mask = transport::kAttrState | transport::kAttrPkey | transport::kAttrAccessFlags;
  const IbvModify m = to_ibv_modify(args, {.port = 1, .pkey_index = 3, .sgid_index = 0});
  EXPECT_EQ(m.mask, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_ACCESS_FLAGS | IBV_QP_PORT);
  EXPECT_EQ(m.attr.qp_state, IBV_QPS_INIT);
  EXPECT_EQ(m.attr.pkey_index, 3);
  EXPECT_EQ(m.attr.port_num, 1);
  EXPECT_EQ(m.attr.qp_access_flags, IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
}

TEST(VerbsMapping, InitToRtrBuildsAGlobalAddressVector) {
  ModifyQpArgs args;
  args.attr.state = QpState::kRtr;
  args.attr.path_mtu = 2048;
  args.attr.dest_qpn = 0x123456;
  args.attr.rq_psn = 0xabcdef;
  args.attr.max_dest_rd_atomic = 4;
  args.attr.min_rnr_timer = 12;
  args.mask = transport::kAttrState | transport::kAttrPathMtu | transport::kAttrDestQpn |
              transport::kAttrRqPsn | transport::kAttrMaxDestRdAtomic |
              transport::kAttrMinRnrTimer | transport::kAttrAddress;
  AvArgs av;
  av.dip = v4("198.18.0.1");
  av.traffic_class = 0x6a;
  av.hop_limit = 17;
  av.flow_label = 0x12345;
  av.vlan_prio = 5;
  args.av = av;
  const IbvModify m = to_ibv_modify(args, {.port = 2, .pkey_index = 0, .sgid_index = 7});
  EXPECT_EQ(m.mask & IBV_QP_PORT, 0);  // only RESET->INIT (and INIT->INIT) take the port
  EXPECT_NE(m.mask & IBV_QP_AV, 0);
  EXPECT_EQ(m.attr.path_mtu, IBV_MTU_2048);
  EXPECT_EQ(m.attr.dest_qp_num, 0x123456U);
  EXPECT_EQ(m.attr.rq_psn, 0xabcdefU);
  EXPECT_EQ(m.attr.max_dest_rd_atomic, 4);
  EXPECT_EQ(m.attr.min_rnr_timer, 12);
  const ibv_ah_attr& ah = m.attr.ah_attr;
  EXPECT_EQ(ah.is_global, 1);
  EXPECT_EQ(ah.port_num, 2);
  EXPECT_EQ(ah.sl, 5);
  EXPECT_EQ(ah.grh.sgid_index, 7);
  EXPECT_EQ(ah.grh.hop_limit, 17);
  EXPECT_EQ(ah.grh.traffic_class, 0x6a);
  EXPECT_EQ(ah.grh.flow_label, 0x12345U);
  const uint8_t mapped[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 198, 18, 0, 1};
  EXPECT_EQ(std::memcmp(ah.grh.dgid.raw, mapped, 16), 0);
}

TEST(VerbsMapping, RtrToRtsFields) {
  ModifyQpArgs args;
  args.attr.state = QpState::kRts;
  args.attr.sq_psn = 0x10;
  args.attr.timeout = 14;
  args.attr.retry_cnt = 6;
  args.attr.rnr_retry = 5;
  args.attr.max_rd_atomic = 2;
  args.mask = transport::kAttrState | transport::kAttrSqPsn | transport::kAttrTimeout |
              transport::kAttrRetryCnt | transport::kAttrRnrRetry | transport::kAttrMaxRdAtomic;
  const IbvModify m = to_ibv_modify(args, {});
  EXPECT_EQ(m.mask, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
                        IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
  EXPECT_EQ(m.attr.qp_state, IBV_QPS_RTS);
  EXPECT_EQ(m.attr.sq_psn, 0x10U);
  EXPECT_EQ(m.attr.timeout, 14);
  EXPECT_EQ(m.attr.retry_cnt, 6);
  EXPECT_EQ(m.attr.rnr_retry, 5);
  EXPECT_EQ(m.attr.max_rd_atomic, 2);
}

TEST(VerbsMapping, QueriedAttributesMapBack) {
  ibv_qp_attr q{};
  q.qp_state = IBV_QPS_RTS;
  q.qp_access_flags = IBV_ACCESS_REMOTE_ATOMIC;
  q.path_mtu = IBV_MTU_4096;
  q.dest_qp_num = 17;
  q.rq_psn = 1;
  q.sq_psn = 2;
  q.timeout = 3;
  q.retry_cnt = 4;
  q.rnr_retry = 5;
  q.min_rnr_timer = 6;
  q.max_rd_atomic = 7;
  q.max_dest_rd_atomic = 8;
  q.ah_attr.grh.dgid = to_gid(v6("2001:db8::2"));
  q.ah_attr.grh.traffic_class = 9;
  q.ah_attr.grh.hop_limit = 10;
  q.ah_attr.grh.flow_label = 11;
  const transport::QpAttributes a = from_ibv_attr(q);
  EXPECT_EQ(a.state, QpState::kRts);
  EXPECT_EQ(a.access_flags, transport::kQpRemoteAtomic);
  EXPECT_EQ(a.path_mtu, 4096U);
  EXPECT_EQ(a.dest_qpn, 17U);
  EXPECT_EQ(a.rq_psn, 1U);
  EXPECT_EQ(a.sq_psn, 2U);
  EXPECT_EQ(a.timeout, 3);
  EXPECT_EQ(a.retry_cnt, 4);
  EXPECT_EQ(a.rnr_retry, 5);
  EXPECT_EQ(a.min_rnr_timer, 6);
  EXPECT_EQ(a.max_rd_atomic, 7);
  EXPECT_EQ(a.max_dest_rd_atomic, 8);
  EXPECT_EQ(a.av.dip, transport::IpAddress(v6("2001:db8::2")));
  EXPECT_EQ(a.av.traffic_class, 9);
  EXPECT_EQ(a.av.hop_limit, 10);
  EXPECT_EQ(a.av.flow_label, 11U);
}

TEST(VerbsMapping, GidsOfIpv4AreMappedAndMapBack) {
  const ibv_gid g = to_gid(v4("10.0.0.2"));
  EXPECT_EQ(g.raw[10], 0xff);
  EXPECT_EQ(g.raw[11], 0xff);
  EXPECT_EQ(g.raw[15], 2);
  EXPECT_EQ(from_gid(g), transport::IpAddress(v4("10.0.0.2")));
  EXPECT_EQ(gid_address(v4("10.0.0.2")), v6("::ffff:10.0.0.2"));
  const ibv_gid h = to_gid(v6("fe80::1"));
  EXPECT_EQ(from_gid(h), transport::IpAddress(v6("fe80::1")));
}

TEST(VerbsMapping, SendOpcodes) {
  EXPECT_EQ(to_ibv(SendOpcode::kSend), IBV_WR_SEND);
  EXPECT_EQ(to_ibv(SendOpcode::kSendWithImm), IBV_WR_SEND_WITH_IMM);
  EXPECT_EQ(to_ibv(SendOpcode::kSendWithInv), IBV_WR_SEND_WITH_INV);
  EXPECT_EQ(to_ibv(SendOpcode::kWrite), IBV_WR_RDMA_WRITE);
  EXPECT_EQ(to_ibv(SendOpcode::kWriteWithImm), IBV_WR_RDMA_WRITE_WITH_IMM);
  EXPECT_EQ(to_ibv(SendOpcode::kRead), IBV_WR_RDMA_READ);
  EXPECT_EQ(to_ibv(SendOpcode::kCompareSwap), IBV_WR_ATOMIC_CMP_AND_SWP);
  EXPECT_EQ(to_ibv(SendOpcode::kFetchAdd), IBV_WR_ATOMIC_FETCH_AND_ADD);
}

TEST(VerbsMapping, SendWithImmCarriesWireOrderAndFlags) {
  transport::SendWr w;
  w.wr_id = 42;
  w.opcode = SendOpcode::kWriteWithImm;
  w.sg_list = {{.addr = 0x1000, .length = 64, .lkey = 7}, {.addr = 0x2000, .length = 8, .lkey = 9}};
  w.imm_data = 0x12345678;
  w.remote_addr = 0xdead0000;
  w.rkey = 0x55;
  w.solicited = true;
  const IbvSendWr s(w);
  EXPECT_EQ(s.wr.wr_id, 42U);
  EXPECT_EQ(s.wr.num_sge, 2);
  EXPECT_EQ(s.wr.sg_list, s.sges.data());
  EXPECT_EQ(s.wr.sg_list[1].addr, 0x2000U);
  EXPECT_EQ(s.wr.sg_list[1].lkey, 9U);
  EXPECT_EQ(s.wr.opcode, IBV_WR_RDMA_WRITE_WITH_IMM);
  EXPECT_EQ(s.wr.send_flags, unsigned{IBV_SEND_SIGNALED | IBV_SEND_SOLICITED});
  const auto* bytes = reinterpret_cast<const uint8_t*>(&s.wr.imm_data);
  EXPECT_EQ(bytes[0], 0x12);  // ImmDt's first byte on the wire
  EXPECT_EQ(bytes[3], 0x78);
  EXPECT_EQ(s.wr.wr.rdma.remote_addr, 0xdead0000U);
  EXPECT_EQ(s.wr.wr.rdma.rkey, 0x55U);
}

TEST(VerbsMapping, AtomicsAndInvalidate) {
  transport::SendWr w;
  w.opcode = SendOpcode::kCompareSwap;
  w.signaled = false;
  w.sg_list = {{.addr = 0x1000, .length = 8, .lkey = 1}};
  w.remote_addr = 0x8000;
  w.rkey = 3;
  w.compare_add = 0x1111;
  w.swap = 0x2222;
  const IbvSendWr a(w);
  EXPECT_EQ(a.wr.send_flags, 0U);
  EXPECT_EQ(a.wr.wr.atomic.remote_addr, 0x8000U);
  EXPECT_EQ(a.wr.wr.atomic.rkey, 3U);
  EXPECT_EQ(a.wr.wr.atomic.compare_add, 0x1111U);
  EXPECT_EQ(a.wr.wr.atomic.swap, 0x2222U);

  transport::SendWr inv;
  inv.opcode = SendOpcode::kSendWithInv;
  inv.invalidate_rkey = 0xabcd;
  const IbvSendWr i(inv);
  EXPECT_EQ(i.wr.invalidate_rkey, 0xabcdU);
  EXPECT_EQ(i.wr.num_sge, 0);
  EXPECT_EQ(i.wr.sg_list, nullptr);
}

TEST(VerbsMapping, RecvWr) {
  transport::RecvWr r;
  r.wr_id = 5;
  r.sg_list = {{.addr = 0x3000, .length = 4096, .lkey = 8}};
  const IbvRecvWr w(r);
  EXPECT_EQ(w.wr.wr_id, 5U);
  EXPECT_EQ(w.wr.num_sge, 1);
  EXPECT_EQ(w.wr.sg_list->length, 4096U);
}

TEST(VerbsMapping, CompletionStatuses) {
  const std::pair<ibv_wc_status, WcStatus> named[] = {
      {IBV_WC_SUCCESS, WcStatus::kSuccess},
      {IBV_WC_LOC_LEN_ERR, WcStatus::kLocalLengthError},
      {IBV_WC_LOC_QP_OP_ERR, WcStatus::kLocalQpOperationError},
      {IBV_WC_LOC_PROT_ERR, WcStatus::kLocalProtectionError},
      {IBV_WC_WR_FLUSH_ERR, WcStatus::kWrFlushError},
      {IBV_WC_REM_INV_REQ_ERR, WcStatus::kRemoteInvalidRequestError},
      {IBV_WC_REM_ACCESS_ERR, WcStatus::kRemoteAccessError},
      {IBV_WC_REM_OP_ERR, WcStatus::kRemoteOperationError},
      {IBV_WC_RETRY_EXC_ERR, WcStatus::kRetryExceededError},
      {IBV_WC_RNR_RETRY_EXC_ERR, WcStatus::kRnrRetryExceededError},
      {IBV_WC_BAD_RESP_ERR, WcStatus::kBadResponseError},
      {IBV_WC_GENERAL_ERR, WcStatus::kGeneralError}};
  for (const auto& [theirs, ours] : named) {
    EXPECT_EQ(from_ibv(theirs), ours) << wc_status_name(theirs);
    // The protocol's names are verbs' names without IBV_WC_.
    EXPECT_EQ(transport::to_string(ours), wc_status_name(theirs));
  }
  EXPECT_EQ(from_ibv(IBV_WC_MW_BIND_ERR), WcStatus::kGeneralError);
  EXPECT_EQ(wc_status_name(IBV_WC_MW_BIND_ERR), "MW_BIND_ERR");
  EXPECT_EQ(wc_status_name(IBV_WC_FATAL_ERR), "FATAL_ERR");
}

TEST(VerbsMapping, CompletionOpcodes) {
  EXPECT_EQ(from_ibv(IBV_WC_SEND), WcOpcode::kSend);
  EXPECT_EQ(from_ibv(IBV_WC_RDMA_WRITE), WcOpcode::kRdmaWrite);
  EXPECT_EQ(from_ibv(IBV_WC_RDMA_READ), WcOpcode::kRdmaRead);
  EXPECT_EQ(from_ibv(IBV_WC_COMP_SWAP), WcOpcode::kCompareSwap);
  EXPECT_EQ(from_ibv(IBV_WC_FETCH_ADD), WcOpcode::kFetchAdd);
  EXPECT_EQ(from_ibv(IBV_WC_RECV), WcOpcode::kRecv);
  EXPECT_EQ(from_ibv(IBV_WC_RECV_RDMA_WITH_IMM), WcOpcode::kRecvRdmaWithImm);
  EXPECT_FALSE(from_ibv(IBV_WC_BIND_MW));
  EXPECT_FALSE(from_ibv(IBV_WC_LOCAL_INV));
}

TEST(VerbsMapping, WorkCompletionWithImmediateAndInvalidate) {
  ibv_wc wc{};
  wc.wr_id = 9;
  wc.status = IBV_WC_SUCCESS;
  wc.opcode = IBV_WC_RECV_RDMA_WITH_IMM;
  wc.byte_len = 100;
  wc.qp_num = 0x11;
  wc.wc_flags = IBV_WC_WITH_IMM;
  wc.imm_data = htobe32(0xcafef00d);
  transport::Completion c = from_ibv(wc);
  EXPECT_EQ(c.wr_id, 9U);
  EXPECT_EQ(c.opcode, WcOpcode::kRecvRdmaWithImm);
  EXPECT_EQ(c.byte_len, 100U);
  EXPECT_EQ(c.qp_num, 0x11U);
  EXPECT_EQ(c.imm_data, 0xcafef00dU);
  EXPECT_FALSE(c.invalidated_rkey);

  wc.opcode = IBV_WC_RECV;
  wc.wc_flags = IBV_WC_WITH_INV;
  wc.invalidated_rkey = 0x77;
  c = from_ibv(wc);
  EXPECT_FALSE(c.imm_data);
  EXPECT_EQ(c.invalidated_rkey, 0x77U);

  wc.status = IBV_WC_REM_ACCESS_ERR;
  wc.opcode = IBV_WC_RDMA_WRITE;
  c = from_ibv(wc);
  EXPECT_EQ(c.status, WcStatus::kRemoteAccessError);
  EXPECT_FALSE(c.invalidated_rkey);  // flags are undefined on an error completion
}

// MetaRoCE Part II is refused by a verbs device, never ignored: the EV set names its field;
// the peer's MXCAP block alone passes (the QP simply stays in base mode, section 18).
TEST(VerbsMapping, Part2IsRefusedAsNotSupported) {
  ModifyQpArgs args;
  args.mask = transport::kAttrState | transport::kAttrEvSet;
  args.attr.ev_set = std::vector<transport::ext::EvEntry>{{.ev = 1, .plane = 0}};
  auto refused = check_base_only(args);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ErrorCode::kEnotsup);
  EXPECT_EQ(refused.error().field, "attrs.ev_set");
  EXPECT_NE(refused.error().message.find("not supported by a verbs device (base RoCEv2 only"),
            std::string::npos)
      << refused.error().message;
  args.mask = transport::kAttrState | transport::kAttrPeerMxcap;
  EXPECT_TRUE(check_base_only(args));
  const ControlError port = part2_not_supported("set_port", "op");
  EXPECT_EQ(port.code, ErrorCode::kEnotsup);
  EXPECT_EQ(port.field, "op");
  EXPECT_TRUE(port.message.starts_with("set_port is not supported by a verbs device"))
      << port.message;
}

}  // namespace
}  // namespace mr::agent
