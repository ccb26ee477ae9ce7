#include "harness/interop/reference_peer.h"

#include <algorithm>
#include <utility>

#include "harness/agent/dut_types.h"
#include "reference/memory/access.h"

namespace mr::interop {
namespace {

constexpr uint32_t kCqDepth = 64;
constexpr uint32_t kQueueDepth = 16;

template <class T>
Result<T> named(agent::Result<T> r, const char* step) {
  if (!r) return Unexpected("reference " + std::string(step) + ": " + r.error().to_string());
  if constexpr (std::is_void_v<T>) {
    return {};
  } else {
    return std::move(*r);
  }
}

}  // namespace

ReferencePeer::ReferencePeer(io::Link& link, agent::ReferenceBackendOptions options)
    : backend_(std::make_unique<agent::ReferenceBackend>(link, clock_, std::move(options))),
      pump_(std::make_unique<agent::DataPathThread>(*backend_, 200'000)) {}

ReferencePeer::~ReferencePeer() { pump_.reset(); }

Result<void> ReferencePeer::setup(uint64_t buffer_bytes) {
  auto& b = *backend_;
  auto pd = named(b.create_pd(), "create_pd");
  if (!pd) return Unexpected(pd.error());
  pd_ = *pd;
  auto mr = named(b.reg_mr({.pd = pd_,
                            .length = buffer_bytes,
                            .access = memory::kLocalWrite | memory::kRemoteAccess,
                            .va = std::nullopt}),
                  "reg_mr");
  if (!mr) return Unexpected(mr.error());
  buffer_ = {.lkey = mr->lkey, .rkey = mr->rkey, .va = mr->va, .length = mr->length};
  auto cq = named(b.create_cq(kCqDepth), "create_cq");
  if (!cq) return Unexpected(cq.error());
  cq_ = *cq;
  agent::CreateQpArgs qp;
  qp.init.pd = pd_;
  qp.init.send_cq = cq_;
  qp.init.recv_cq = cq_;
  qp.init.max_send_wr = kQueueDepth;
  qp.init.max_recv_wr = kQueueDepth;
  auto qpn = named(b.create_qp(qp), "create_qp");
  if (!qpn) return Unexpected(qpn.error());
  qpn_ = *qpn;
  agent::ModifyQpArgs init;
  init.qpn = qpn_;
  init.attr.state = transport::QpState::kInit;
  init.attr.access_flags =
      transport::kQpRemoteWrite | transport::kQpRemoteRead | transport::kQpRemoteAtomic;
  init.mask = transport::kAttrState | transport::kAttrAccessFlags | transport::kAttrPkey;
  return named(b.modify_qp(init), "modify_qp INIT");
}

Result<void> ReferencePeer::connect(const ConnectArgs& a) {
  agent::AvArgs av;
  av.dmac = a.remote_mac;  // the peer's MAC is known: no ARP on an impaired link
  av.dip = a.remote_ip;
  agent::ModifyQpArgs rtr;
  rtr.qpn = qpn_;
  rtr.attr.state = transport::QpState::kRtr;
  rtr.attr.path_mtu = a.mtu;
  rtr.attr.dest_qpn = a.remote_qpn;
  rtr.attr.rq_psn = a.remote_psn;
  rtr.attr.max_dest_rd_atomic = kQueueDepth;
  rtr.attr.min_rnr_timer = 12;
  rtr.av = av;
  rtr.mask = transport::kAttrState | transport::kAttrAddress | transport::kAttrPathMtu |
             transport::kAttrDestQpn | transport::kAttrRqPsn | transport::kAttrMaxDestRdAtomic |
             transport::kAttrMinRnrTimer;
  if (auto done = named(backend_->modify_qp(rtr), "modify_qp RTR"); !done) return done;
  agent::ModifyQpArgs rts;
  rts.qpn = qpn_;
  rts.attr.state = transport::QpState::kRts;
  rts.attr.sq_psn = a.local_psn;
  rts.attr.timeout = a.timeout;
  rts.attr.retry_cnt = a.retry_cnt;
  rts.attr.rnr_retry = a.rnr_retry;
  rts.attr.max_rd_atomic = kQueueDepth;
  rts.mask = transport::kAttrState | transport::kAttrSqPsn | transport::kAttrTimeout |
             transport::kAttrRetryCnt | transport::kAttrRnrRetry | transport::kAttrMaxRdAtomic;
  return named(backend_->modify_qp(rts), "modify_qp RTS");
}

Result<void> ReferencePeer::post_send(const transport::SendWr& wr) {
  return named(backend_->post_send(qpn_, wr), "post_send");
}

Result<void> ReferencePeer::post_recv(uint64_t wr_id, uint64_t offset, uint32_t length) {
  transport::RecvWr wr;
  wr.wr_id = wr_id;
  if (length > 0)
    wr.sg_list.push_back({.addr = buffer_.va + offset, .length = length, .lkey = buffer_.lkey});
  return named(backend_->post_recv(qpn_, wr), "post_recv");
}

Result<std::vector<CompletionRecord>> ReferencePeer::poll(uint32_t timeout_ms) {
  auto polled = named(
      backend_->poll_cq(
          {.cq = cq_, .max = 16, .timeout_ms = std::min(timeout_ms, agent::kMaxPollTimeoutMs)}),
      "poll_cq");
  if (!polled) return Unexpected(polled.error());
  std::vector<CompletionRecord> out;
  for (const auto& c : *polled) {
    out.push_back({.wr_id = c.wr_id,
                   .status = std::string(transport::to_string(c.status)),
                   .opcode = std::string(transport::to_string(c.opcode)),
                   .byte_len = c.byte_len});
  }
  return out;
}

Result<std::vector<uint8_t>> ReferencePeer::read(uint64_t offset, uint64_t length) {
  return named(backend_->read_mem(
                   {.lkey = buffer_.lkey, .va = buffer_.va + offset, .length = length, .data = {}}),
               "read_mem");
}

Result<void> ReferencePeer::write(uint64_t offset, const std::vector<uint8_t>& bytes) {
  return named(backend_->write_mem(
                   {.lkey = buffer_.lkey, .va = buffer_.va + offset, .length = 0, .data = bytes}),
               "write_mem");
}

Result<void> ReferencePeer::teardown() {
  // Whatever this peer has is gone with its device; a reset says so in one step.
  return named(backend_->reset(), "reset");
}

}  // namespace mr::interop
