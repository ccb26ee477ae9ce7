// File: verbs_mapping.h
//
// The pure half of the verbs backend: protocol names, bits and value types to and from
// their libibverbs counterparts (ibv_qp_state, ibv_mtu, ibv_qp_attr + ibv_qp_attr_mask,
// ibv_send_wr, ibv_wc), and verbs errors as control errors. Nothing here opens a device,
// so every mapping is unit-tested on a machine without RDMA hardware.
//
//   auto m = to_ibv_modify(args, {.port = 1, .pkey_index = 0, .sgid_index = 3});
//   if (int rc = ibv_modify_qp(qp, &m.attr, m.mask)) return verbs_error("ibv_modify_qp", rc, ...);
#pragma once

#include <infiniband/verbs.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/agent/control_vocabulary.h"
#include "harness/agent/dut_types.h"

namespace mr::agent {

// --- errors ---
// "EINVAL" for EINVAL; "errno 1234" for a number libc does not name.
std::string errno_name(int err);
ErrorCode error_code_for_errno(int err);
// `call`: EINVAL (detail), with the code errno maps to.
ControlError verbs_error(std::string_view call, int err, std::string_view detail = {},
                         std::string field = {});

// --- Part II ---
// A verbs device (Linux rxe included) is base RoCEv2 only: MetaRoCE Part II's requests are
// refused, ENOTSUP naming `field`, never ignored (a harness must not believe an EV was denied
// or a port cut when nothing happened).
ControlError part2_not_supported(std::string_view what, std::string field);
// modify_qp's attributes that only a Part II device takes (ev_set): refused as above. The
// peer's MXCAP block is not among them: a device without Part II keeps the QP in base mode,
// which is what the block asks of it (section 18).
Result<void> check_base_only(const ModifyQpArgs& args);

// --- QP states, MTUs, attribute masks ---
ibv_qp_state to_ibv(transport::QpState state);
transport::QpState from_ibv(ibv_qp_state state);
std::optional<ibv_mtu> mtu_to_ibv(uint32_t bytes);
uint32_t mtu_bytes(ibv_mtu mtu);  // 0 for a value verbs does not define

// The ibv_qp_attr_mask for a protocol mask (transport::QpAttrMask bits). A P_Key is a
// pkey_index in verbs; `with_port` adds IBV_QP_PORT, which verbs requires on RESET->INIT.
int to_ibv_attr_mask(uint32_t mask, bool with_port);

// What the backend resolved on the device before building the ibv_qp_attr.
struct ResolvedQpContext {
  uint8_t port = 1;
  uint16_t pkey_index = 0;  // the index of attr.pkey in the port's P_Key table
  uint8_t sgid_index = 0;   // the GID whose address is av.sip (or the default GID)
};

struct IbvModify {
  ibv_qp_attr attr{};
  int mask = 0;
};

// ModifyQpArgs as ibv_modify_qp takes them. The av becomes a global ah_attr (RoCE needs a
// GRH): dgid is dip (IPv4 as an IPv4-mapped GID), with traffic_class, hop_limit and
// flow_label. dmac, udp_sport and VLAN have no place in ibv_ah_attr: the kernel resolves the
// destination MAC from its neighbour table and derives the rest from the GID's netdev.
IbvModify to_ibv_modify(const ModifyQpArgs& args, const ResolvedQpContext& context);

// ibv_query_qp's result as the protocol's attributes; the caller fills av.smac, av.sip and
// pkey, which verbs reports only as indices.
transport::QpAttributes from_ibv_attr(const ibv_qp_attr& attr);

// --- GIDs ---
ibv_gid to_gid(const transport::IpAddress& ip);     // IPv4 as ::ffff:a.b.c.d
transport::IpAddress from_gid(const ibv_gid& gid);  // IPv4-mapped GIDs as IPv4
wire::Ipv6Address gid_address(const transport::IpAddress& ip);

// --- work requests and completions ---
ibv_wr_opcode to_ibv(transport::SendOpcode opcode);

// An ibv_send_wr with its scatter list. Not copyable: wr.sg_list points into sges.
struct IbvSendWr {
  std::vector<ibv_sge> sges;
  ibv_send_wr wr{};

  explicit IbvSendWr(const transport::SendWr& send);
  IbvSendWr(const IbvSendWr&) = delete;
  IbvSendWr& operator=(const IbvSendWr&) = delete;
};

struct IbvRecvWr {
  std::vector<ibv_sge> sges;
  ibv_recv_wr wr{};

  explicit IbvRecvWr(const transport::RecvWr& recv);
  IbvRecvWr(const IbvRecvWr&) = delete;
  IbvRecvWr& operator=(const IbvRecvWr&) = delete;
};

// "LOC_PROT_ERR" for IBV_WC_LOC_PROT_ERR: every ibv_wc_status, named as verbs names it.
std::string_view wc_status_name(ibv_wc_status status);
// The protocol's status; a status protocol 1 has no name for (MW_BIND_ERR, FATAL_ERR, ...)
// is GENERAL_ERR.
transport::WcStatus from_ibv(ibv_wc_status status);
// nullopt for an opcode the agent never posts (BIND_MW, LOCAL_INV, TSO, ...).
std::optional<transport::WcOpcode> from_ibv(ibv_wc_opcode opcode);
transport::Completion from_ibv(const ibv_wc& wc);

}  // namespace mr::agent
