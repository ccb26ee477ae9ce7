// File: dut_messages.h
//
// The requests and replies of the DUT control protocol (docs/dut-control-protocol.md) as the
// harness sends and reads them. Values a script may set are uint64_t, unchecked here: the
// agent refuses an out-of-range one (EINVAL naming the member), as it would from any client.
// An optional member that is empty is not sent (modify_qp's attribute mask is the set of
// members present).
//
//   protocol::QpAttrs rts{.state = "RTS", .sq_psn = 0x1234};
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mr::protocol {

// reg_mr: a region of `length` bytes in `pd`, known by `va` when given.
struct RegMr {
  uint32_t pd = 0;
  uint64_t length = 0;
  std::vector<std::string> access;  // LOCAL_WRITE, REMOTE_WRITE, REMOTE_READ, ...
  std::optional<uint64_t> va;
};

struct MemoryRegion {
  uint32_t lkey = 0;
  uint32_t rkey = 0;
  uint64_t va = 0;
  uint64_t length = 0;
};

struct CreateQp {
  uint32_t pd = 0;
  uint32_t send_cq = 0;
  uint32_t recv_cq = 0;
  std::string type = "RC";  // RC, UC, UD
  std::optional<uint32_t> srq;
  std::optional<uint64_t> max_send_wr;
  std::optional<uint64_t> max_recv_wr;
};

// modify_qp's `av` and a UD work request's address handle.
struct AddressVector {
  std::string dip;
  std::optional<std::string> dmac;
  std::optional<std::string> sip;
  std::optional<uint64_t> traffic_class;
  std::optional<uint64_t> hop_limit;
  std::optional<uint64_t> flow_label;
  std::optional<uint64_t> udp_sport;
  std::optional<uint64_t> vlan_id;
  std::optional<uint64_t> vlan_prio;
};

// An entry of an Ext QP's EV set (spec section 20.1): its entropy value (1 .. 65535) and the
// plane (0 .. 15) it leaves on.
struct EvEntry {
  uint64_t ev = 0;
  uint64_t plane = 0;
};

// Section 19.4: one security association; key and salt in hex.
struct SecurityAssociation {
  uint64_t epoch = 0;
  std::string key;   // 64 hex digits
  std::string salt;  // 8 hex digits
  uint64_t spi = 0;
};

struct SecureSa {
  std::vector<SecurityAssociation> tx;
  std::vector<SecurityAssociation> rx;
  std::optional<uint64_t> rekey_packets;  // N_SE_REKEY_PACKETS for this QP
};

struct QpAttrs {
  std::optional<std::string> state;
  std::optional<std::vector<std::string>> access_flags;
  std::optional<uint64_t> pkey;
  std::optional<uint64_t> qkey;
  std::optional<uint64_t> path_mtu;
  std::optional<uint64_t> dest_qpn;
  std::optional<uint64_t> rq_psn;
  std::optional<uint64_t> sq_psn;
  std::optional<uint64_t> timeout;
  std::optional<uint64_t> retry_cnt;
  std::optional<uint64_t> rnr_retry;
  std::optional<uint64_t> min_rnr_timer;
  std::optional<uint64_t> max_rd_atomic;
  std::optional<uint64_t> max_dest_rd_atomic;
  std::optional<AddressVector> av;
  std::optional<std::string> peer_mxcap;       // the peer's MXCAP block in hex (section 18)
  std::optional<std::vector<EvEntry>> ev_set;  // at INIT->RTR: the set instead of the default
  // Secure mode's keys: before INIT->RTR the QP's first, later the next epoch's.
  std::optional<SecureSa> secure_sa;
  std::optional<bool> secure_rotate;  // the sender moves to its installed next epoch
};

struct Sge {
  uint64_t addr = 0;
  uint64_t length = 0;
  uint32_t lkey = 0;
};

// A UD work request's destination (ibv_send_wr's wr.ud).
struct UdDestination {
  AddressVector ah;
  uint64_t remote_qpn = 0;
  uint64_t remote_qkey = 0;
};

struct SendWr {
  std::string opcode = "SEND";
  std::vector<Sge> sg_list;
  uint64_t wr_id = 0;
  std::optional<bool> signaled;
  std::optional<bool> solicited;
  std::optional<uint64_t> imm_data;
  std::optional<uint64_t> invalidate_rkey;
  std::optional<uint64_t> remote_addr;
  std::optional<uint64_t> rkey;
  std::optional<uint64_t> compare_add;
  std::optional<uint64_t> swap;
  std::optional<UdDestination> ud;
};

struct RecvWr {
  uint64_t wr_id = 0;
  std::vector<Sge> sg_list;
};

// One poll_cq completion; the optional members are those the agent sent.
struct Completion {
  uint64_t wr_id = 0;
  std::string status;  // SUCCESS, LOC_LEN_ERR, ...
  std::string opcode;  // SEND, RECV, RDMA_WRITE, ...
  uint64_t byte_len = 0;
  uint32_t qp_num = 0;
  std::optional<uint64_t> imm_data;
  std::optional<uint64_t> invalidated_rkey;
  std::optional<bool> solicited;
  std::optional<uint64_t> src_qp;
  std::optional<bool> grh;
};

// query_qp's EV set entry: an Ext QP's carries its state (GOOD, ASSUMED_BAD, DENIED); a base
// QP's set is the one it was given, unused, without states.
struct EvEntryInfo {
  uint64_t ev = 0;
  uint64_t plane = 0;
  std::optional<std::string> state;
};

// query_qp's attrs: the state always, the numbers when the agent reports them.
struct QpInfo {
  std::string state;
  std::optional<uint64_t> pkey;
  std::optional<uint64_t> path_mtu;
  std::optional<uint64_t> dest_qpn;
  std::optional<uint64_t> rq_psn;
  std::optional<uint64_t> sq_psn;
  std::optional<uint64_t> qkey;
  std::optional<std::string> ext_mode;  // EXT or BASE (Part II agents)
  std::optional<std::vector<EvEntryInfo>> ev_set;
  std::optional<uint64_t> cwnd;  // bytes: an Ext QP with CC (MR-SC-12)
};

using Counters = std::map<std::string, uint64_t>;

struct DeviceIdentity {
  std::string name;
  std::string kind;  // reference, verbs
  std::string vendor;
  std::string version;
};

struct Gid {
  uint64_t index = 0;
  std::string gid;
  std::string type;
};

// capabilities: who the DUT is and what it claims.
struct Capabilities {
  DeviceIdentity device;
  std::string mac;
  std::vector<std::string> ips;
  std::vector<Gid> gids;
  std::vector<uint64_t> mtus;
  std::map<std::string, uint64_t> limits;  // max_qp, max_ext_ooo_messages, ...
  std::vector<std::string> pics;
  std::vector<std::string> mutants;  // their names
  std::string mxcap;                 // the MXCAP block it offers, hex; "": no Part II
  uint32_t time_dilation = 1;        // its clock runs this many times slower than real time
};

}  // namespace mr::protocol
