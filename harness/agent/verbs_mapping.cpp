#include "harness/agent/verbs_mapping.h"

#include <endian.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <span>
#include <utility>

#include "reference/memory/access.h"

namespace mr::agent {
namespace {

using transport::QpState;
using transport::SendOpcode;
using transport::WcOpcode;
using transport::WcStatus;

// Protocol access bits are ibv_access_flags values (access.h), so they pass unchanged.
static_assert(uint32_t{memory::kLocalWrite} == uint32_t{IBV_ACCESS_LOCAL_WRITE});
static_assert(uint32_t{memory::kRemoteWrite} == uint32_t{IBV_ACCESS_REMOTE_WRITE});
static_assert(uint32_t{memory::kRemoteRead} == uint32_t{IBV_ACCESS_REMOTE_READ});
static_assert(uint32_t{memory::kRemoteAtomic} == uint32_t{IBV_ACCESS_REMOTE_ATOMIC});
static_assert(uint32_t{memory::kMwBind} == uint32_t{IBV_ACCESS_MW_BIND});
static_assert(uint32_t{transport::kQpRemoteWrite} == uint32_t{IBV_ACCESS_REMOTE_WRITE});
static_assert(uint32_t{transport::kQpRemoteRead} == uint32_t{IBV_ACCESS_REMOTE_READ});
static_assert(uint32_t{transport::kQpRemoteAtomic} == uint32_t{IBV_ACCESS_REMOTE_ATOMIC});

constexpr std::array<std::pair<uint32_t, int>, 14> kMaskBits{{
    {transport::kAttrState, IBV_QP_STATE},
    {transport::kAttrAccessFlags, IBV_QP_ACCESS_FLAGS},
    {transport::kAttrPkey, IBV_QP_PKEY_INDEX},
    {transport::kAttrPathMtu, IBV_QP_PATH_MTU},
    {transport::kAttrAddress, IBV_QP_AV},
    {transport::kAttrDestQpn, IBV_QP_DEST_QPN},
    {transport::kAttrRqPsn, IBV_QP_RQ_PSN},
    {transport::kAttrSqPsn, IBV_QP_SQ_PSN},
    {transport::kAttrTimeout, IBV_QP_TIMEOUT},
    {transport::kAttrRetryCnt, IBV_QP_RETRY_CNT},
    {transport::kAttrRnrRetry, IBV_QP_RNR_RETRY},
    {transport::kAttrMinRnrTimer, IBV_QP_MIN_RNR_TIMER},
    {transport::kAttrMaxRdAtomic, IBV_QP_MAX_QP_RD_ATOMIC},
    {transport::kAttrMaxDestRdAtomic, IBV_QP_MAX_DEST_RD_ATOMIC},
}};

constexpr std::array<std::pair<QpState, ibv_qp_state>, 6> kStates{{
    {QpState::kReset, IBV_QPS_RESET},
    {QpState::kInit, IBV_QPS_INIT},
    {QpState::kRtr, IBV_QPS_RTR},
    {QpState::kRts, IBV_QPS_RTS},
    {QpState::kSqd, IBV_QPS_SQD},
    {QpState::kError, IBV_QPS_ERR},
}};

constexpr std::array<std::pair<uint32_t, ibv_mtu>, 5> kMtus{{
    {256, IBV_MTU_256},
    {512, IBV_MTU_512},
    {1024, IBV_MTU_1024},
    {2048, IBV_MTU_2048},
    {4096, IBV_MTU_4096},
}};

struct WcStatusEntry {
  ibv_wc_status status;
  std::string_view name;
  WcStatus mapped;
};

constexpr std::array<WcStatusEntry, 23> kWcStatuses{{
    {IBV_WC_SUCCESS, "SUCCESS", WcStatus::kSuccess},
    {IBV_WC_LOC_LEN_ERR, "LOC_LEN_ERR", WcStatus::kLocalLengthError},
    {IBV_WC_LOC_QP_OP_ERR, "LOC_QP_OP_ERR", WcStatus::kLocalQpOperationError},
    {IBV_WC_LOC_EEC_OP_ERR, "LOC_EEC_OP_ERR", WcStatus::kGeneralError},
    {IBV_WC_LOC_PROT_ERR, "LOC_PROT_ERR", WcStatus::kLocalProtectionError},
    {IBV_WC_WR_FLUSH_ERR, "WR_FLUSH_ERR", WcStatus::kWrFlushError},
    {IBV_WC_MW_BIND_ERR, "MW_BIND_ERR", WcStatus::kGeneralError},
    {IBV_WC_BAD_RESP_ERR, "BAD_RESP_ERR", WcStatus::kBadResponseError},
    {IBV_WC_LOC_ACCESS_ERR, "LOC_ACCESS_ERR", WcStatus::kGeneralError},
    {IBV_WC_REM_INV_REQ_ERR, "REM_INV_REQ_ERR", WcStatus::kRemoteInvalidRequestError},
    {IBV_WC_REM_ACCESS_ERR, "REM_ACCESS_ERR", WcStatus::kRemoteAccessError},
    {IBV_WC_REM_OP_ERR, "REM_OP_ERR", WcStatus::kRemoteOperationError},
    {IBV_WC_RETRY_EXC_ERR, "RETRY_EXC_ERR", WcStatus::kRetryExceededError},
    {IBV_WC_RNR_RETRY_EXC_ERR, "RNR_RETRY_EXC_ERR", WcStatus::kRnrRetryExceededError},
    {IBV_WC_LOC_RDD_VIOL_ERR, "LOC_RDD_VIOL_ERR", WcStatus::kGeneralError},
    {IBV_WC_REM_INV_RD_REQ_ERR, "REM_INV_RD_REQ_ERR", WcStatus::kGeneralError},
    {IBV_WC_REM_ABORT_ERR, "REM_ABORT_ERR", WcStatus::kRemoteAbortError},
    {IBV_WC_INV_EECN_ERR, "INV_EECN_ERR", WcStatus::kGeneralError},
    {IBV_WC_INV_EEC_STATE_ERR, "INV_EEC_STATE_ERR", WcStatus::kGeneralError},
    {IBV_WC_FATAL_ERR, "FATAL_ERR", WcStatus::kGeneralError},
    {IBV_WC_RESP_TIMEOUT_ERR, "RESP_TIMEOUT_ERR", WcStatus::kGeneralError},
    {IBV_WC_GENERAL_ERR, "GENERAL_ERR", WcStatus::kGeneralError},
    {IBV_WC_TM_ERR, "TM_ERR", WcStatus::kGeneralError},
}};

void fill_sges(std::span<const transport::Sge> in, std::vector<ibv_sge>& out) {
  out.reserve(in.size());
  for (const auto& s : in) out.push_back({.addr = s.addr, .length = s.length, .lkey = s.lkey});
}

}  // namespace

std::string errno_name(int err) {
  if (const char* name = strerrorname_np(err)) return name;
  return "errno " + std::to_string(err);
}

ErrorCode error_code_for_errno(int err) {
  switch (err) {
    case ENOENT:
    case ENODEV:
      return ErrorCode::kEnoent;
    case EBUSY:
      return ErrorCode::kEbusy;
    case EPERM:
    case EACCES:
      return ErrorCode::kEperm;
    case ENOMEM:
    case ENOSPC:
    case EAGAIN:
      return ErrorCode::kEnospc;
    case ETIMEDOUT:
      return ErrorCode::kEtimedout;
    case EOPNOTSUPP:
    case ENOSYS:
      return ErrorCode::kEnotsup;
    default:
      return ErrorCode::kEinval;
  }
}

ControlError verbs_error(std::string_view call, int err, std::string_view detail,
                         std::string field) {
  std::string message(call);
  message += ": " + errno_name(err);
  if (!detail.empty()) message += " (" + std::string(detail) + ")";
  return ControlError{error_code_for_errno(err), std::move(message), std::move(field)};
}

ControlError part2_not_supported(std::string_view what, std::string field) {
  return {ErrorCode::kEnotsup,
          std::string(what) +
              " is not supported by a verbs device (base RoCEv2 only: MetaRoCE Part II is not "
              "in libibverbs)",
          std::move(field)};
}

Result<void> check_base_only(const ModifyQpArgs& args) {
  if ((args.mask & transport::kAttrEvSet) != 0)
    return Unexpected(part2_not_supported("an EV set (section 20.1)", "attrs.ev_set"));
  if ((args.mask & transport::kAttrSecureSa) != 0)
    return Unexpected(part2_not_supported("secure mode (section 19.4)", "attrs.secure_sa"));
  if ((args.mask & transport::kAttrSecureRotate) != 0)
    return Unexpected(part2_not_supported("secure mode (section 19.4)", "attrs.secure_rotate"));
  return {};
}

ibv_qp_state to_ibv(QpState state) {
  for (const auto& [ours, theirs] : kStates) {
    if (ours == state) return theirs;
  }
  return IBV_QPS_ERR;
}

QpState from_ibv(ibv_qp_state state) {
  for (const auto& [ours, theirs] : kStates) {
    if (theirs == state) return ours;
  }
  return QpState::kError;  // SQE and UNKNOWN: the QP cannot send, as in ERROR
}

std::optional<ibv_mtu> mtu_to_ibv(uint32_t bytes) {
  for (const auto& [n, mtu] : kMtus) {
    if (n == bytes) return mtu;
  }
  return std::nullopt;
}

uint32_t mtu_bytes(ibv_mtu mtu) {
  for (const auto& [n, m] : kMtus) {
    if (m == mtu) return n;
  }
  return 0;
}

int to_ibv_attr_mask(uint32_t mask, bool with_port) {
  int out = with_port ? IBV_QP_PORT : 0;
  for (const auto& [ours, theirs] : kMaskBits) {
    if ((mask & ours) != 0) out |= theirs;
  }
  return out;
}

IbvModify to_ibv_modify(const ModifyQpArgs& args, const ResolvedQpContext& context) {
  const auto& a = args.attr;
  const uint32_t mask = args.mask;
  // Verbs wants the port with the P_Key on RESET->INIT (and allows it on INIT->INIT).
  const bool with_port = (mask & transport::kAttrState) != 0 && a.state == QpState::kInit;
  IbvModify m;
  m.mask = to_ibv_attr_mask(mask, with_port);
  ibv_qp_attr& q = m.attr;
  q.qp_state = to_ibv(a.state);
  q.qp_access_flags = a.access_flags;
  q.pkey_index = context.pkey_index;
  q.port_num = context.port;
  q.path_mtu = mtu_to_ibv(a.path_mtu).value_or(IBV_MTU_1024);
  q.dest_qp_num = a.dest_qpn;
  q.rq_psn = a.rq_psn;
  q.sq_psn = a.sq_psn;
  q.timeout = a.timeout;
  q.retry_cnt = a.retry_cnt;
  q.rnr_retry = a.rnr_retry;
  q.min_rnr_timer = a.min_rnr_timer;
  q.max_rd_atomic = a.max_rd_atomic;
  q.max_dest_rd_atomic = a.max_dest_rd_atomic;
  if (args.av) {
    const AvArgs& av = *args.av;
    ibv_ah_attr& ah = q.ah_attr;
    ah.is_global = 1;  // RoCE: every packet has a GRH (IP header)
    ah.port_num = context.port;
    ah.sl = av.vlan_prio;  // the 802.1p priority where the GID's netdev is a VLAN
    ah.grh.dgid = to_gid(av.dip);
    ah.grh.sgid_index = context.sgid_index;
    ah.grh.hop_limit = av.hop_limit;
    ah.grh.traffic_class = av.traffic_class;
    ah.grh.flow_label = av.flow_label;
  }
  return m;
}

transport::QpAttributes from_ibv_attr(const ibv_qp_attr& q) {
  transport::QpAttributes a;
  a.state = from_ibv(q.qp_state);
  a.access_flags = q.qp_access_flags;
  a.path_mtu = mtu_bytes(q.path_mtu);
  a.dest_qpn = q.dest_qp_num;
  a.rq_psn = q.rq_psn;
  a.sq_psn = q.sq_psn;
  a.timeout = q.timeout;
  a.retry_cnt = q.retry_cnt;
  a.rnr_retry = q.rnr_retry;
  a.min_rnr_timer = q.min_rnr_timer;
  a.max_rd_atomic = q.max_rd_atomic;
  a.max_dest_rd_atomic = q.max_dest_rd_atomic;
  const ibv_ah_attr& ah = q.ah_attr;
  a.av.dip = from_gid(ah.grh.dgid);
  a.av.traffic_class = ah.grh.traffic_class;
  a.av.hop_limit = ah.grh.hop_limit;
  a.av.flow_label = ah.grh.flow_label;
  a.av.vlan_prio = ah.sl;
  a.av.udp_sport = 0;  // chosen by the kernel and not reported by verbs
  return a;
}

wire::Ipv6Address gid_address(const transport::IpAddress& ip) {
  if (const auto* v6 = std::get_if<wire::Ipv6Address>(&ip)) return *v6;
  wire::Ipv6Address mapped;
  mapped.bytes[10] = 0xff;
  mapped.bytes[11] = 0xff;
  const auto& v4 = std::get<wire::Ipv4Address>(ip).bytes;
  std::copy(v4.begin(), v4.end(), mapped.bytes.begin() + 12);
  return mapped;
}

ibv_gid to_gid(const transport::IpAddress& ip) {
  ibv_gid gid{};
  const auto address = gid_address(ip);
  std::memcpy(gid.raw, address.bytes.data(), sizeof gid.raw);
  return gid;
}

transport::IpAddress from_gid(const ibv_gid& gid) {
  static constexpr std::array<uint8_t, 12> kMappedPrefix{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  if (std::memcmp(gid.raw, kMappedPrefix.data(), kMappedPrefix.size()) == 0) {
    wire::Ipv4Address v4;
    std::memcpy(v4.bytes.data(), gid.raw + 12, 4);
    return v4;
  }
  wire::Ipv6Address v6;
  std::memcpy(v6.bytes.data(), gid.raw, sizeof gid.raw);
  return v6;
}

ibv_wr_opcode to_ibv(SendOpcode opcode) {
  switch (opcode) {
    case SendOpcode::kSend:
      return IBV_WR_SEND;
    case SendOpcode::kSendWithImm:
      return IBV_WR_SEND_WITH_IMM;
    case SendOpcode::kSendWithInv:
      return IBV_WR_SEND_WITH_INV;
    case SendOpcode::kWrite:
      return IBV_WR_RDMA_WRITE;
    case SendOpcode::kWriteWithImm:
      return IBV_WR_RDMA_WRITE_WITH_IMM;
    case SendOpcode::kRead:
      return IBV_WR_RDMA_READ;
    case SendOpcode::kCompareSwap:
      return IBV_WR_ATOMIC_CMP_AND_SWP;
    case SendOpcode::kFetchAdd:
      return IBV_WR_ATOMIC_FETCH_AND_ADD;
  }
  return IBV_WR_SEND;
}

IbvSendWr::IbvSendWr(const transport::SendWr& send) {
  fill_sges(send.sg_list, sges);
  wr.wr_id = send.wr_id;
  wr.sg_list = sges.empty() ? nullptr : sges.data();
  wr.num_sge = static_cast<int>(sges.size());
  wr.opcode = to_ibv(send.opcode);
  wr.send_flags = (send.signaled ? unsigned{IBV_SEND_SIGNALED} : 0U) |
                  (send.solicited ? unsigned{IBV_SEND_SOLICITED} : 0U);
  switch (send.opcode) {
    case SendOpcode::kSendWithImm:
    case SendOpcode::kWriteWithImm:
      // The protocol's value is ImmDt read big-endian; verbs wants the wire bytes.
      wr.imm_data = htobe32(send.imm_data);
      break;
    case SendOpcode::kSendWithInv:
      wr.invalidate_rkey = send.invalidate_rkey;
      break;
    default:
      break;
  }
  switch (send.opcode) {
    case SendOpcode::kWrite:
    case SendOpcode::kWriteWithImm:
    case SendOpcode::kRead:
      wr.wr.rdma.remote_addr = send.remote_addr;
      wr.wr.rdma.rkey = send.rkey;
      break;
    case SendOpcode::kCompareSwap:
    case SendOpcode::kFetchAdd:
      wr.wr.atomic.remote_addr = send.remote_addr;
      wr.wr.atomic.rkey = send.rkey;
      wr.wr.atomic.compare_add = send.compare_add;
      wr.wr.atomic.swap = send.swap;
      break;
    default:
      break;
  }
}

IbvRecvWr::IbvRecvWr(const transport::RecvWr& recv) {
  fill_sges(recv.sg_list, sges);
  wr.wr_id = recv.wr_id;
  wr.sg_list = sges.empty() ? nullptr : sges.data();
  wr.num_sge = static_cast<int>(sges.size());
}

std::string_view wc_status_name(ibv_wc_status status) {
  for (const auto& e : kWcStatuses) {
    if (e.status == status) return e.name;
  }
  return "UNKNOWN";
}

WcStatus from_ibv(ibv_wc_status status) {
  for (const auto& e : kWcStatuses) {
    if (e.status == status) return e.mapped;
  }
  return WcStatus::kGeneralError;
}

std::optional<WcOpcode> from_ibv(ibv_wc_opcode opcode) {
  switch (opcode) {
    case IBV_WC_SEND:
      return WcOpcode::kSend;
    case IBV_WC_RDMA_WRITE:
      return WcOpcode::kRdmaWrite;
    case IBV_WC_RDMA_READ:
      return WcOpcode::kRdmaRead;
    case IBV_WC_COMP_SWAP:
      return WcOpcode::kCompareSwap;
    case IBV_WC_FETCH_ADD:
      return WcOpcode::kFetchAdd;
    case IBV_WC_RECV:
      return WcOpcode::kRecv;
    case IBV_WC_RECV_RDMA_WITH_IMM:
      return WcOpcode::kRecvRdmaWithImm;
    default:
      return std::nullopt;
  }
}

transport::Completion from_ibv(const ibv_wc& wc) {
  transport::Completion c;
  c.wr_id = wc.wr_id;
  c.status = from_ibv(wc.status);
  // An opcode the agent never posts, or an error completion whose opcode verbs leaves
  // undefined: reported as SEND, the status says what happened.
  c.opcode = from_ibv(wc.opcode).value_or(WcOpcode::kSend);
  c.byte_len = wc.byte_len;
  c.qp_num = wc.qp_num;
  if (wc.status == IBV_WC_SUCCESS) {
    if ((wc.wc_flags & IBV_WC_WITH_IMM) != 0) c.imm_data = be32toh(wc.imm_data);
    if ((wc.wc_flags & IBV_WC_WITH_INV) != 0) c.invalidated_rkey = wc.invalidated_rkey;
  }
  // verbs reports no solicited bit in ibv_wc: solicited stays false.
  return c;
}

}  // namespace mr::agent
