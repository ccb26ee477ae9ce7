#include "harness/peer/peer_qp.h"

#include "reference/memory/access.h"

namespace mr::peer {
namespace {

constexpr uint32_t kCqDepth = 16384;
constexpr uint32_t kQueueDepth = 4096;

template <class T>
Expected<T, std::string> named(agent::Result<T> r, const char* step) {
  if (!r) return Unexpected(std::string(step) + ": " + r.error().to_string());
  if constexpr (std::is_void_v<T>) {
    return {};
  } else {
    return std::move(*r);
  }
}

}  // namespace

Expected<std::unique_ptr<PeerQp>, std::string> PeerQp::create(io::Link& link,
                                                              const PeerQpOptions& options,
                                                              uint64_t buffer_bytes) {
  std::unique_ptr<PeerQp> p(new PeerQp());
  p->options_ = options;
  agent::ReferenceBackendOptions backend_options{
      .mac = options.mac, .ipv4 = options.ip, .seed = options.seed, .mutants = {}};
  p->backend_ = std::make_unique<agent::ReferenceBackend>(link, p->clock_, backend_options);
  p->pump_ = std::make_unique<agent::DataPathThread>(*p->backend_, 200'000);
  auto& b = *p->backend_;
  auto pd = named(b.create_pd(), "create_pd");
  if (!pd) return Unexpected(pd.error());
  auto mr = named(b.reg_mr({.pd = *pd,
                            .length = buffer_bytes,
                            .access = memory::kLocalWrite | memory::kRemoteAccess,
                            .va = std::nullopt}),
                  "reg_mr");
  if (!mr) return Unexpected(mr.error());
  p->mr_ = *mr;
  auto cq = named(b.create_cq(kCqDepth), "create_cq");
  if (!cq) return Unexpected(cq.error());
  p->cq_ = *cq;
  agent::CreateQpArgs qp_args;
  qp_args.init.pd = *pd;
  qp_args.init.send_cq = *cq;
  qp_args.init.recv_cq = *cq;
  qp_args.init.max_send_wr = kQueueDepth;
  qp_args.init.max_recv_wr = kQueueDepth;
  auto qpn = named(b.create_qp(qp_args), "create_qp");
  if (!qpn) return Unexpected(qpn.error());
  p->qpn_ = *qpn;
  // A PSN of our own from the seed, as the tools draw theirs at random (lrand48).
  p->psn_ = static_cast<uint32_t>((options.seed * 0x9e3779b97f4a7c15ULL) >> 40) & 0xffffff;
  agent::ModifyQpArgs init;
  init.qpn = *qpn;
  init.attr.state = transport::QpState::kInit;
  init.attr.access_flags =
      transport::kQpRemoteWrite | transport::kQpRemoteRead | transport::kQpRemoteAtomic;
  init.mask = transport::kAttrState | transport::kAttrAccessFlags | transport::kAttrPkey;
  if (auto done = named(b.modify_qp(init), "modify_qp INIT"); !done) {
    return Unexpected(done.error());
  }
  return p;
}

PeerQp::~PeerQp() { pump_.reset(); }

wire::Ipv6Address PeerQp::gid() const {
  wire::Ipv6Address g;
  g.bytes[10] = 0xff;
  g.bytes[11] = 0xff;
  for (size_t i = 0; i < 4; ++i) g.bytes[12 + i] = options_.ip.bytes[i];
  return g;
}

Expected<void, std::string> PeerQp::connect(const RemoteQp& remote) {
  agent::AvArgs av;
  av.dmac = options_.peer_mac;
  const auto& g = remote.gid.bytes;
  const bool v4_mapped = g[0] == 0 && g[1] == 0 && g[2] == 0 && g[3] == 0 && g[4] == 0 &&
                         g[5] == 0 && g[6] == 0 && g[7] == 0 && g[8] == 0 && g[9] == 0 &&
                         g[10] == 0xff && g[11] == 0xff;
  if (v4_mapped) {
    av.dip = wire::Ipv4Address{{g[12], g[13], g[14], g[15]}};
  } else {
    return Unexpected("the tool's GID " + remote.gid.to_string() +
                      " is not IPv4-mapped: run the tool with GID index 1 (-g 1 / -x 1)");
  }
  agent::ModifyQpArgs rtr;
  rtr.qpn = qpn_;
  rtr.attr.state = transport::QpState::kRtr;
  rtr.attr.path_mtu = remote.mtu;
  rtr.attr.dest_qpn = remote.qpn;
  rtr.attr.rq_psn = remote.psn;
  rtr.attr.max_dest_rd_atomic = remote.max_dest_rd_atomic;
  rtr.attr.min_rnr_timer = 12;  // as both tools set it
  rtr.av = av;
  rtr.mask = transport::kAttrState | transport::kAttrAddress | transport::kAttrPathMtu |
             transport::kAttrDestQpn | transport::kAttrRqPsn | transport::kAttrMaxDestRdAtomic |
             transport::kAttrMinRnrTimer;
  if (auto done = named(backend_->modify_qp(rtr), "modify_qp RTR"); !done) return done;
  agent::ModifyQpArgs rts;
  rts.qpn = qpn_;
  rts.attr.state = transport::QpState::kRts;
  rts.attr.sq_psn = psn_;
  rts.attr.timeout = 14;
  rts.attr.retry_cnt = 7;
  rts.attr.rnr_retry = 7;
  rts.attr.max_rd_atomic = remote.max_rd_atomic;
  rts.mask = transport::kAttrState | transport::kAttrSqPsn | transport::kAttrTimeout |
             transport::kAttrRetryCnt | transport::kAttrRnrRetry | transport::kAttrMaxRdAtomic;
  return named(backend_->modify_qp(rts), "modify_qp RTS");
}

Expected<void, std::string> PeerQp::post_send(const transport::SendWr& wr) {
  return named(backend_->post_send(qpn_, wr), "post_send");
}

Expected<void, std::string> PeerQp::post_recv(uint64_t wr_id, uint64_t offset, uint32_t length) {
  transport::RecvWr wr;
  wr.wr_id = wr_id;
  wr.sg_list.push_back({.addr = mr_.va + offset, .length = length, .lkey = mr_.lkey});
  return named(backend_->post_recv(qpn_, wr), "post_recv");
}

Expected<std::vector<transport::Completion>, std::string> PeerQp::poll(uint32_t max,
                                                                       uint32_t timeout_ms) {
  auto polled =
      named(backend_->poll_cq({.cq = cq_, .max = max, .timeout_ms = timeout_ms}), "poll_cq");
  if (!polled) return polled;
  for (const auto& c : *polled) {
    if (c.status != transport::WcStatus::kSuccess) {
      return Unexpected("completion of wr_id " + std::to_string(c.wr_id) + " (" +
                        std::string(transport::to_string(c.opcode)) +
                        "): " + std::string(transport::to_string(c.status)));
    }
  }
  return polled;
}

Expected<std::vector<uint8_t>, std::string> PeerQp::read(uint64_t offset, uint64_t length) {
  return named(
      backend_->read_mem({.lkey = mr_.lkey, .va = mr_.va + offset, .length = length, .data = {}}),
      "read_mem");
}

Expected<void, std::string> PeerQp::write(uint64_t offset, std::vector<uint8_t> bytes) {
  agent::MemArgs args{
      .lkey = mr_.lkey, .va = mr_.va + offset, .length = 0, .data = std::move(bytes)};
  return named(backend_->write_mem(args), "write_mem");
}

}  // namespace mr::peer
