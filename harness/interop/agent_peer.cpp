#include "harness/interop/agent_peer.h"

#include <algorithm>
#include <span>

#include "harness/agent/dut_types.h"
#include "harness/protocol/protocol_limits.h"

namespace mr::interop {
namespace {

constexpr uint32_t kCqDepth = 64;
constexpr uint32_t kQueueDepth = 16;
constexpr uint32_t kRdAtomic = 16;
const std::vector<std::string> kRemoteAccess = {"REMOTE_WRITE", "REMOTE_READ", "REMOTE_ATOMIC"};

std::vector<protocol::Sge> sg_list(const transport::SendWr& wr) {
  std::vector<protocol::Sge> list;
  for (const auto& s : wr.sg_list) list.push_back({s.addr, s.length, s.lkey});
  return list;
}

}  // namespace

AgentPeer::AgentPeer(dut::DutControl& control, std::string name)
    : client_(dut::typed_client(control)), name_(std::move(name)) {}

Result<void> AgentPeer::setup(uint64_t buffer_bytes) {
  auto pd = step("create_pd", client_.create_pd());
  if (!pd) return Unexpected(pd.error());
  pd_ = *pd;
  std::vector<std::string> access = kRemoteAccess;
  access.emplace_back("LOCAL_WRITE");
  auto mr = step("reg_mr", client_.reg_mr({.pd = *pd_, .length = buffer_bytes, .access = access}));
  if (!mr) return Unexpected(mr.error());
  has_mr_ = true;
  buffer_ = {.lkey = mr->lkey, .rkey = mr->rkey, .va = mr->va, .length = mr->length};
  auto cq = step("create_cq", client_.create_cq(kCqDepth));
  if (!cq) return Unexpected(cq.error());
  cq_ = *cq;
  auto qp = step("create_qp", client_.create_qp({.pd = *pd_,
                                                 .send_cq = *cq_,
                                                 .recv_cq = *cq_,
                                                 .type = "RC",
                                                 .max_send_wr = kQueueDepth,
                                                 .max_recv_wr = kQueueDepth}));
  if (!qp) return Unexpected(qp.error());
  qpn_ = *qp;
  return step(
      "modify_qp INIT",
      client_.modify_qp(*qpn_, {.state = "INIT", .access_flags = kRemoteAccess, .pkey = 0xffff}));
}

Result<void> AgentPeer::connect(const ConnectArgs& a) {
  // The verbs agent ignores dmac (the kernel resolves the neighbour: the guest has a
  // permanent entry for the tester's address); a reference agent needs it.
  auto rtr = step(
      "modify_qp RTR",
      client_.modify_qp(qpn(), {.state = "RTR",
                                .path_mtu = a.mtu,
                                .dest_qpn = a.remote_qpn,
                                .rq_psn = a.remote_psn,
                                .min_rnr_timer = 12,
                                .max_dest_rd_atomic = kRdAtomic,
                                .av = protocol::AddressVector{.dip = a.remote_ip.to_string(),
                                                              .dmac = a.remote_mac.to_string()}}));
  if (!rtr) return rtr;
  return step("modify_qp RTS", client_.modify_qp(qpn(), {.state = "RTS",
                                                         .sq_psn = a.local_psn,
                                                         .timeout = a.timeout,
                                                         .retry_cnt = a.retry_cnt,
                                                         .rnr_retry = a.rnr_retry,
                                                         .max_rd_atomic = kRdAtomic}));
}

Result<void> AgentPeer::post_send(const transport::SendWr& wr) {
  protocol::SendWr w{.opcode = std::string(transport::to_string(wr.opcode)),
                     .sg_list = sg_list(wr),
                     .wr_id = wr.wr_id};
  if (wr.opcode != transport::SendOpcode::kSend) {
    w.remote_addr = wr.remote_addr;
    w.rkey = wr.rkey;
  }
  if (wr.opcode == transport::SendOpcode::kFetchAdd ||
      wr.opcode == transport::SendOpcode::kCompareSwap) {
    w.compare_add = wr.compare_add;
  }
  if (wr.opcode == transport::SendOpcode::kCompareSwap) w.swap = wr.swap;
  return step("post_send", client_.post_send(qpn(), w));
}

Result<void> AgentPeer::post_recv(uint64_t wr_id, uint64_t offset, uint32_t length) {
  protocol::RecvWr wr{.wr_id = wr_id};
  if (length > 0) wr.sg_list.push_back({buffer_.va + offset, length, buffer_.lkey});
  return step("post_recv", client_.post_recv(qpn(), wr));
}

Result<std::vector<CompletionRecord>> AgentPeer::poll(uint32_t timeout_ms) {
  const uint32_t wait = std::min(timeout_ms, protocol::kMaxPollTimeoutMs);
  auto polled = step("poll_cq", client_.poll_cq(cq_.value_or(0), 16, wait));
  if (!polled) return Unexpected(polled.error());
  std::vector<CompletionRecord> out;
  for (const auto& c : *polled) {
    out.push_back({.wr_id = c.wr_id,
                   .status = c.status,
                   .opcode = c.opcode,
                   .byte_len = static_cast<uint32_t>(c.byte_len)});
  }
  return out;
}

Result<std::vector<uint8_t>> AgentPeer::read(uint64_t offset, uint64_t length) {
  std::vector<uint8_t> bytes;
  bytes.reserve(length);
  for (uint64_t at = 0; at < length;) {
    const uint64_t n = std::min(length - at, protocol::kMaxMemTransfer);
    auto got = step("read_mem", client_.read_mem(buffer_.lkey, buffer_.va + offset + at, n));
    if (!got) return Unexpected(got.error());
    bytes.insert(bytes.end(), got->begin(), got->end());
    at += n;
  }
  return bytes;
}

Result<void> AgentPeer::write(uint64_t offset, const std::vector<uint8_t>& bytes) {
  for (uint64_t at = 0; at < bytes.size();) {
    const uint64_t n = std::min<uint64_t>(bytes.size() - at, protocol::kMaxMemTransfer);
    auto done = step("write_mem", client_.write_mem(buffer_.lkey, buffer_.va + offset + at,
                                                    std::span(bytes).subspan(at, n)));
    if (!done) return done;
    at += n;
  }
  return {};
}

Result<void> AgentPeer::teardown() {
  // In dependency order; the first failure is reported, the rest still attempted.
  std::optional<std::string> first;
  auto destroy = [&](const char* kind, std::optional<uint32_t>& handle) {
    if (!handle) return;
    auto done = step("destroy", client_.destroy(kind, *handle));
    if (!done && !first) first = done.error();
    handle.reset();
  };
  destroy("qp", qpn_);
  destroy("cq", cq_);
  if (has_mr_) {
    std::optional<uint32_t> mr = buffer_.lkey;
    destroy("mr", mr);
    has_mr_ = false;
  }
  destroy("pd", pd_);
  if (first) return Unexpected(*first);
  return {};
}

}  // namespace mr::interop
