#include "harness/agent/verbs_backend.h"

#include <fcntl.h>
#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>
#include <utility>

#include "harness/agent/verbs_mapping.h"
#include "reference/memory/access.h"

namespace mr::agent {
namespace {

using Clock = std::chrono::steady_clock;

// poll_cq sleeps this long between empty polls: short against the 10 s bound and the
// retransmission timers under test, long enough not to spin a core of a small guest.
constexpr auto kPollInterval = std::chrono::microseconds(200);

constexpr const char* kLoadHint =
    "load rdma_rxe and run 'rdma link add rxe0 type rxe netdev IFACE'";

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

// Destroys a handle with `destroy`; on success the handle gives the object up, on failure
// it keeps it (the object still exists) and the error names the verbs call.
template <class Handle, class Destroy>
Result<void> destroy_handle(Handle& handle, Destroy destroy, const char* call) {
  if (int rc = destroy(handle.get()); rc != 0)
    return Unexpected(verbs_error(call, rc, {}, "handle"));
  (void)handle.release();
  return {};
}

}  // namespace

Expected<std::unique_ptr<VerbsBackend>, std::string> VerbsBackend::open(
    const VerbsBackendOptions& options) {
  int count = 0;
  errno = 0;
  IbvDeviceList list(ibv_get_device_list(&count));
  if (!list || count == 0) {
    const std::string why =
        !list ? "ibv_get_device_list: " + errno_name(errno) : "libibverbs lists no device";
    return Unexpected("no RDMA device found: " + why + "; " + kLoadHint);
  }
  ibv_device* device = nullptr;
  std::string names;
  for (int i = 0; i < count; ++i) {
    const std::string name = ibv_get_device_name(list.get()[i]);
    names += (i == 0 ? "" : ", ") + name;
    if (device == nullptr && (options.device.empty() || options.device == name)) {
      device = list.get()[i];
    }
  }
  if (device == nullptr) {
    return Unexpected("no RDMA device named " + options.device + " (found: " + names + ")");
  }
  const std::string name = ibv_get_device_name(device);
  IbvContext context(ibv_open_device(device));
  if (!context) return Unexpected("ibv_open_device(" + name + "): " + errno_name(errno));

  ibv_port_attr port{};
  if (int rc = ibv_query_port(context.get(), options.port, &port); rc != 0) {
    return Unexpected("ibv_query_port(" + name + ", port " + std::to_string(options.port) +
                      "): " + errno_name(rc));
  }
  if (port.link_layer != IBV_LINK_LAYER_ETHERNET) {
    return Unexpected("port " + std::to_string(options.port) + " of " + name +
                      " is not RoCE (its link layer is not Ethernet)");
  }
  const SysfsDevice sysfs(options.sys_root, name, options.port);
  const auto gids = sysfs.gids();
  std::optional<uint32_t> gid_index = options.gid_index;
  if (gid_index) {
    const bool present =
        std::ranges::any_of(gids, [&](const SysfsGid& g) { return g.index == *gid_index; });
    if (!present) {
      return Unexpected("GID index " + std::to_string(*gid_index) + " of " + name + " port " +
                        std::to_string(options.port) + " is empty");
    }
  } else {
    gid_index = default_gid_index(gids);
    if (!gid_index) {
      return Unexpected("no RoCE v2 GID with an IPv4 address on " + name + " port " +
                        std::to_string(options.port) +
                        ": give the netdev an IPv4 address, or pass --gid-index");
    }
  }
  auto backend = std::make_unique<VerbsBackend>(OpenKey{}, std::move(context), name, options.port,
                                                *gid_index, options.sys_root);
  if (int rc = ibv_query_device(backend->context_.get(), &backend->device_attr_); rc != 0) {
    return Unexpected("ibv_query_device(" + name + "): " + errno_name(rc));
  }
  return backend;
}

VerbsBackend::VerbsBackend(OpenKey /*key*/, IbvContext context, std::string device_name,
                           uint8_t port, uint32_t gid_index, const std::filesystem::path& sys_root)
    : context_(std::move(context)),
      device_name_(std::move(device_name)),
      port_(port),
      gid_index_(gid_index),
      sysfs_(sys_root, device_name_, port) {}

VerbsBackend::~VerbsBackend() {
  std::lock_guard lock(mutex_);
  clear_locked();
}

void VerbsBackend::clear_locked() {
  // Dependency order: QPs use SRQs, CQs and PDs; SRQs and MRs use PDs.
  qps_.clear();
  srqs_.clear();
  cqs_.clear();
  pending_events_.clear();
  mrs_.clear();
  srq_pd_.reset();
  pds_.clear();
  objects_.clear();
  next_pd_ = next_cq_ = next_srq_ = 1;
}

Result<uint32_t> VerbsBackend::create_pd() {
  std::lock_guard lock(mutex_);
  IbvPd pd(ibv_alloc_pd(context_.get()));
  if (!pd) return Unexpected(verbs_error("ibv_alloc_pd", errno));
  const uint32_t handle = next_pd_++;
  pds_.emplace(handle, std::move(pd));
  objects_.add_pd(handle);
  return handle;
}

Result<MrResult> VerbsBackend::reg_mr(const RegMrArgs& args) {
  std::lock_guard lock(mutex_);
  if (auto ok = objects_.check(ObjectKind::kPd, args.pd, "pd"); !ok) return Unexpected(ok.error());
  if (auto bad = memory::check_mr_access(args.access)) {
    return control_error(ErrorCode::kEinval, *bad, "access");
  }
  auto memory = map_memory(args.length, args.va);
  if (!memory) {
    // Out of memory is the host's limit, not the request's fault: ENOSPC (a test that needs
    // the region is inconclusive here), wherever the region was to go.
    if (memory.error() == ENOMEM) {
      return control_error(
          ErrorCode::kEnospc,
          "cannot map " + std::to_string(args.length) + " bytes for the region: mmap: ENOMEM",
          "length");
    }
    if (args.va) {
      return control_error(ErrorCode::kEinval,
                           "cannot map the region at " + hex(*args.va) +
                               ": mmap: " + errno_name(memory.error()) +
                               " (the address is in use or invalid here; omit va to let the "
                               "agent choose)",
                           "va");
    }
    return Unexpected(verbs_error("mmap", memory.error(), "the region's memory", "length"));
  }
  Region region;
  region.va = args.va.value_or(reinterpret_cast<uintptr_t>(memory->data()));
  region.length = args.length;
  region.memory = std::move(*memory);
  // NOLINTNEXTLINE(performance-no-int-to-ptr): va lies inside region.memory
  void* address = reinterpret_cast<void*>(region.va);
  region.mr.reset(
      ibv_reg_mr(pds_.at(args.pd).get(), address, args.length, static_cast<int>(args.access)));
  if (!region.mr) return Unexpected(verbs_error("ibv_reg_mr", errno));
  const MrResult result{region.mr->lkey, region.mr->rkey, region.va, region.length};
  objects_.add_mr(result.lkey, args.pd);
  mrs_.insert_or_assign(result.lkey, std::move(region));
  return result;
}

Result<void> VerbsBackend::dereg_mr(uint32_t lkey) {
  if (std::lock_guard lock(mutex_); !mrs_.contains(lkey)) {
    return control_error(ErrorCode::kEnoent, "no such MR", "lkey");
  }
  return destroy(ObjectKind::kMr, lkey);
}

Result<uint32_t> VerbsBackend::create_cq(uint32_t depth) {
  std::lock_guard lock(mutex_);
  auto channel = channel_locked();
  if (!channel) return Unexpected(channel.error());
  const uint32_t handle = next_cq_;
  IbvCq cq(ibv_create_cq(context_.get(), static_cast<int>(depth), nullptr, *channel, 0));
  if (!cq)
    return Unexpected(
        verbs_error("ibv_create_cq", errno, "depth " + std::to_string(depth), "depth"));
  ++next_cq_;
  cqs_.emplace(handle, std::move(cq));
  objects_.add_cq(handle);
  return handle;
}

Result<ibv_pd*> VerbsBackend::srq_pd_locked() {
  // verbs puts an SRQ in a PD, the protocol does not: the client's first PD (devices that
  // check receive lkeys against the SRQ's PD then accept that PD's regions), else our own.
  if (!pds_.empty()) return pds_.begin()->second.get();
  if (!srq_pd_) {
    srq_pd_.reset(ibv_alloc_pd(context_.get()));
    if (!srq_pd_) return Unexpected(verbs_error("ibv_alloc_pd", errno, "for an SRQ"));
  }
  return srq_pd_.get();
}

Result<uint32_t> VerbsBackend::create_srq(uint32_t max_wr) {
  std::lock_guard lock(mutex_);
  auto pd = srq_pd_locked();
  if (!pd) return Unexpected(pd.error());
  ibv_srq_init_attr init{};
  init.attr.max_wr = max_wr;
  init.attr.max_sge = std::min<uint32_t>(kMaxSge, device_attr_.max_srq_sge);
  IbvSrq srq(ibv_create_srq(*pd, &init));
  if (!srq)
    return Unexpected(
        verbs_error("ibv_create_srq", errno, "max_wr " + std::to_string(max_wr), "max_wr"));
  const uint32_t handle = next_srq_++;
  srqs_.emplace(handle, std::move(srq));
  objects_.add_srq(handle);
  return handle;
}

Result<uint32_t> VerbsBackend::create_qp(const CreateQpArgs& args) {
  std::lock_guard lock(mutex_);
  const auto& init = args.init;
  // UC and UD (address handles, Q_Keys, GRH areas) are not mapped onto libibverbs yet.
  if (init.type != transport::QpType::kRc) {
    return control_error(ErrorCode::kEnotsup,
                         "the verbs backend creates RC QPs only; " +
                             std::string(transport::to_string(init.type)) + " is not supported",
                         "type");
  }
  for (auto ok : {objects_.check(ObjectKind::kPd, init.pd, "pd"),
                  objects_.check(ObjectKind::kCq, init.send_cq, "send_cq"),
                  objects_.check(ObjectKind::kCq, init.recv_cq, "recv_cq"),
                  init.srq ? objects_.check(ObjectKind::kSrq, *init.srq, "srq") : Result<void>{}}) {
    if (!ok) return Unexpected(ok.error());
  }
  const uint32_t max_sge = std::min<uint32_t>(kMaxSge, device_attr_.max_sge);
  ibv_qp_init_attr attr{};
  attr.send_cq = cqs_.at(init.send_cq).get();
  attr.recv_cq = cqs_.at(init.recv_cq).get();
  attr.srq = init.srq ? srqs_.at(*init.srq).get() : nullptr;
  attr.cap.max_send_wr = init.max_send_wr;
  attr.cap.max_recv_wr = init.srq ? 0 : init.max_recv_wr;
  attr.cap.max_send_sge = max_sge;
  attr.cap.max_recv_sge = init.srq ? 0 : max_sge;
  attr.qp_type = IBV_QPT_RC;
  attr.sq_sig_all = 0;  // each work request says whether it is signaled
  IbvQp qp(ibv_create_qp(pds_.at(init.pd).get(), &attr));
  if (!qp) return Unexpected(verbs_error("ibv_create_qp", errno, "type RC"));
  const uint32_t qpn = qp->qp_num;
  qps_.insert_or_assign(qpn, std::move(qp));
  objects_.add_qp(qpn, {init.pd, init.send_cq, init.recv_cq, init.srq});
  return qpn;
}

Result<uint16_t> VerbsBackend::pkey_index_locked(uint16_t pkey) const {
  ibv_port_attr port{};
  if (int rc = ibv_query_port(context_.get(), port_, &port); rc != 0) {
    return Unexpected(verbs_error("ibv_query_port", rc));
  }
  for (int i = 0; i < port.pkey_tbl_len; ++i) {
    __be16 entry = 0;
    if (ibv_query_pkey(context_.get(), port_, i, &entry) == 0 && be16toh(entry) == pkey) {
      return static_cast<uint16_t>(i);
    }
  }
  return control_error(
      ErrorCode::kEinval,
      "not in the P_Key table of " + device_name_ + " port " + std::to_string(port_), "attrs.pkey");
}

Result<void> VerbsBackend::modify_qp(const ModifyQpArgs& args) {
  std::lock_guard lock(mutex_);
  if (auto ok = objects_.check(ObjectKind::kQp, args.qpn, "qpn"); !ok) return ok;
  if (auto ok = check_base_only(args); !ok) return ok;
  ResolvedQpContext context{.port = port_, .pkey_index = 0, .sgid_index = 0};
  if ((args.mask & transport::kAttrPkey) != 0) {
    auto index = pkey_index_locked(args.attr.pkey);
    if (!index) return Unexpected(index.error());
    context.pkey_index = *index;
  }
  if (args.av) {
    if (args.av->vlan_id) {
      return control_error(ErrorCode::kEinval,
                           "verbs takes the VLAN from the source GID's netdev: give the sip of "
                           "a GID on the VLAN interface instead",
                           "attrs.av.vlan_id");
    }
    auto sgid = select_sgid_index(sysfs_.gids(), gid_index_, args.av->dip, args.av->sip);
    if (!sgid) return Unexpected(sgid.error());
    context.sgid_index = static_cast<uint8_t>(*sgid);
  }
  IbvModify m = to_ibv_modify(args, context);
  if (int rc = ibv_modify_qp(qps_.at(args.qpn).get(), &m.attr, m.mask); rc != 0) {
    std::string detail = (args.mask & transport::kAttrState) != 0
                             ? "attrs.state " + std::string(to_string(args.attr.state))
                             : "attrs";
    if (args.av && (rc == ENODATA || rc == EHOSTUNREACH || rc == ETIMEDOUT)) {
      detail += "; the kernel found no MAC for dip in its neighbour table";
    }
    return Unexpected(verbs_error("ibv_modify_qp", rc, detail, "attrs"));
  }
  return {};
}

Result<transport::QpAttributes> VerbsBackend::query_qp(uint32_t qpn) {
  std::lock_guard lock(mutex_);
  if (auto ok = objects_.check(ObjectKind::kQp, qpn, "qpn"); !ok) return Unexpected(ok.error());
  ibv_qp_attr attr{};
  ibv_qp_init_attr init{};
  constexpr int kAll = IBV_QP_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
                       IBV_QP_PATH_MTU | IBV_QP_AV | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                       IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                       IBV_QP_MIN_RNR_TIMER | IBV_QP_MAX_QP_RD_ATOMIC | IBV_QP_MAX_DEST_RD_ATOMIC;
  if (int rc = ibv_query_qp(qps_.at(qpn).get(), &attr, kAll, &init); rc != 0) {
    return Unexpected(verbs_error("ibv_query_qp", rc, {}, "qpn"));
  }
  transport::QpAttributes out = from_ibv_attr(attr);
  __be16 pkey = 0;
  if (ibv_query_pkey(context_.get(), port_, attr.pkey_index, &pkey) == 0) out.pkey = be16toh(pkey);
  // The source MAC and IP are those of the source GID and its netdev.
  for (const auto& g : sysfs_.gids()) {
    if (g.index != attr.ah_attr.grh.sgid_index) continue;
    ibv_gid gid{};
    std::memcpy(gid.raw, g.gid.bytes.data(), sizeof gid.raw);
    out.av.sip = from_gid(gid);
    if (auto mac = sysfs_.netdev_mac(g.ndev)) out.av.smac = *mac;
  }
  return out;
}

Result<void> VerbsBackend::check_sges_locked(std::span<const transport::Sge> sges) const {
  for (size_t i = 0; i < sges.size(); ++i) {
    const auto& s = sges[i];
    const std::string field = "wr.sg_list[" + std::to_string(i) + "]";
    auto it = mrs_.find(s.lkey);
    if (it == mrs_.end())
      return control_error(ErrorCode::kEinval, "no MR has this lkey", field + ".lkey");
    const Region& r = it->second;
    if (s.addr < r.va || s.addr - r.va > r.length || s.length > r.length - (s.addr - r.va)) {
      return control_error(ErrorCode::kEinval, "outside the MR of this lkey", field + ".addr");
    }
  }
  return {};
}

Result<void> VerbsBackend::post_send(uint32_t qpn, const transport::SendWr& wr) {
  std::lock_guard lock(mutex_);
  if (auto ok = objects_.check(ObjectKind::kQp, qpn, "qpn"); !ok) return ok;
  if (wr.ud) {
    return control_error(ErrorCode::kEnotsup, "the verbs backend has no UD QPs", "wr.ud");
  }
  if (auto ok = check_sges_locked(wr.sg_list); !ok) return ok;
  IbvSendWr send(wr);
  ibv_send_wr* bad = nullptr;
  if (int rc = ibv_post_send(qps_.at(qpn).get(), &send.wr, &bad); rc != 0) {
    return Unexpected(verbs_error("ibv_post_send", rc, to_string(wr.opcode), "wr"));
  }
  return {};
}

Result<void> VerbsBackend::post_recv(uint32_t qpn, const transport::RecvWr& wr) {
  std::lock_guard lock(mutex_);
  if (auto ok = objects_.check(ObjectKind::kQp, qpn, "qpn"); !ok) return ok;
  if (auto ok = check_sges_locked(wr.sg_list); !ok) return ok;
  IbvRecvWr recv(wr);
  ibv_recv_wr* bad = nullptr;
  if (int rc = ibv_post_recv(qps_.at(qpn).get(), &recv.wr, &bad); rc != 0) {
    return Unexpected(verbs_error("ibv_post_recv", rc, {}, "wr"));
  }
  return {};
}

Result<void> VerbsBackend::post_srq_recv(uint32_t srq, const transport::RecvWr& wr) {
  std::lock_guard lock(mutex_);
  if (auto ok = objects_.check(ObjectKind::kSrq, srq, "srq"); !ok) return ok;
  if (auto ok = check_sges_locked(wr.sg_list); !ok) return ok;
  IbvRecvWr recv(wr);
  ibv_recv_wr* bad = nullptr;
  if (int rc = ibv_post_srq_recv(srqs_.at(srq).get(), &recv.wr, &bad); rc != 0) {
    return Unexpected(verbs_error("ibv_post_srq_recv", rc, {}, "wr"));
  }
  return {};
}

Result<std::vector<transport::Completion>> VerbsBackend::poll_cq(const PollCqArgs& args) {
  const auto deadline =
      Clock::now() + std::chrono::milliseconds(std::min(args.timeout_ms, kMaxPollTimeoutMs));
  std::vector<ibv_wc> wcs(std::clamp<uint32_t>(args.max, 1, kMaxPollEntries));
  for (;;) {
    {
      std::lock_guard lock(mutex_);
      if (auto ok = objects_.check(ObjectKind::kCq, args.cq, "cq"); !ok) {
        return Unexpected(ok.error());
      }
      const int n = ibv_poll_cq(cqs_.at(args.cq).get(), static_cast<int>(wcs.size()), wcs.data());
      if (n < 0) {
        // Providers return -1 or a negative errno, and need not set errno: say what we know.
        return control_error(ErrorCode::kEinval,
                             "ibv_poll_cq: failed (returned " + std::to_string(n) + ")", "cq");
      }
      if (n > 0 || Clock::now() >= deadline) {
        std::vector<transport::Completion> out;
        out.reserve(static_cast<size_t>(n));
        for (int i = 0; i < n; ++i) out.push_back(from_ibv(wcs[static_cast<size_t>(i)]));
        return out;
      }
    }
    std::this_thread::sleep_for(kPollInterval);
  }
}

Result<void> VerbsBackend::req_notify_cq(uint32_t cq, bool solicited_only) {
  std::lock_guard lock(mutex_);
  if (auto ok = objects_.check(ObjectKind::kCq, cq, "cq"); !ok) return ok;
  if (int rc = ibv_req_notify_cq(cqs_.at(cq).get(), solicited_only ? 1 : 0); rc != 0) {
    return Unexpected(verbs_error("ibv_req_notify_cq", rc, {}, "cq"));
  }
  return {};
}

Result<ibv_comp_channel*> VerbsBackend::channel_locked() {
  if (!channel_) {
    channel_.reset(ibv_create_comp_channel(context_.get()));
    if (!channel_) return Unexpected(verbs_error("ibv_create_comp_channel", errno, {}, "cq"));
    const int flags = fcntl(channel_->fd, F_GETFL);
    if (flags < 0 || fcntl(channel_->fd, F_SETFL, flags | O_NONBLOCK) < 0) {
      const int err = errno;
      channel_.reset();
      return Unexpected(verbs_error("fcntl(O_NONBLOCK) on the completion channel", err, {}, "cq"));
    }
  }
  return channel_.get();
}

void VerbsBackend::drain_channel_locked() {
  if (!channel_) return;
  // Bounded: a CQ raises at most one event per arming, so few are ever queued.
  for (int i = 0; i < 4096; ++i) {
    ibv_cq* cq = nullptr;
    void* context = nullptr;
    if (ibv_get_cq_event(channel_.get(), &cq, &context) != 0) return;  // EAGAIN: drained
    ibv_ack_cq_events(cq, 1);
    // Which of our CQs: a handful per test, so a scan is cheap.
    for (const auto& [handle, owned] : cqs_) {
      if (owned.get() == cq) ++pending_events_[handle];
    }
  }
}

Result<uint32_t> VerbsBackend::get_cq_events(uint32_t cq, uint32_t timeout_ms) {
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(std::min(timeout_ms, kMaxPollTimeoutMs));
  for (;;) {
    int fd = -1;
    {
      std::lock_guard lock(mutex_);
      if (auto ok = objects_.check(ObjectKind::kCq, cq, "cq"); !ok) return Unexpected(ok.error());
      drain_channel_locked();
      if (auto it = pending_events_.find(cq); it != pending_events_.end() && it->second > 0) {
        return std::exchange(it->second, 0);
      }
      if (std::chrono::steady_clock::now() >= deadline || !channel_) return 0;
      fd = channel_->fd;
    }
    // Wait for the channel outside the lock, in slices: another call may drain it first.
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    pollfd p{fd, POLLIN, 0};
    (void)::poll(&p, 1, static_cast<int>(std::clamp<int64_t>(left.count(), 0, 10)));
  }
}

Result<const VerbsBackend::Region*> VerbsBackend::region_locked(uint32_t lkey, uint64_t va,
                                                                uint64_t length) const {
  auto it = mrs_.find(lkey);
  if (it == mrs_.end()) return control_error(ErrorCode::kEnoent, "no such MR", "lkey");
  const Region& r = it->second;
  if (va < r.va || va - r.va > r.length || length > r.length - (va - r.va)) {
    return control_error(ErrorCode::kEinval,
                         "[va, va + length) is not inside the region [" + hex(r.va) + ", " +
                             hex(r.va + r.length) + ")",
                         "va");
  }
  return &r;
}

Result<std::vector<uint8_t>> VerbsBackend::read_mem(const MemArgs& args) {
  std::lock_guard lock(mutex_);
  auto region = region_locked(args.lkey, args.va, args.length);
  if (!region) return Unexpected(region.error());
  // NOLINTNEXTLINE(performance-no-int-to-ptr): va is inside the region's mapping
  const auto* from = reinterpret_cast<const uint8_t*>(args.va);
  return std::vector<uint8_t>(from, from + args.length);
}

Result<void> VerbsBackend::write_mem(const MemArgs& args) {
  std::lock_guard lock(mutex_);
  auto region = region_locked(args.lkey, args.va, args.data.size());
  if (!region) return Unexpected(region.error());
  // NOLINTNEXTLINE(performance-no-int-to-ptr): va is inside the region's mapping
  auto* to = reinterpret_cast<uint8_t*>(args.va);
  std::copy(args.data.begin(), args.data.end(), to);
  return {};
}

Result<std::vector<Counter>> VerbsBackend::counters() {
  std::lock_guard lock(mutex_);
  std::vector<Counter> out = sysfs_.counters();
  // rxe has no counters/ directory in sysfs (no MAD support), but ibv_query_port reports
  // the port's P_Key and Q_Key violation counters: add them under the sysfs names.
  ibv_port_attr port{};
  if (ibv_query_port(context_.get(), port_, &port) == 0) {
    for (const auto& extra : {Counter{"bad_pkey_cntr", port.bad_pkey_cntr},
                              Counter{"qkey_viol_cntr", port.qkey_viol_cntr}}) {
      if (std::ranges::none_of(out, [&](const Counter& c) { return c.name == extra.name; })) {
        out.push_back(extra);
      }
    }
  }
  return out;
}

Result<void> VerbsBackend::destroy(ObjectKind kind, uint32_t handle) {
  std::lock_guard lock(mutex_);
  if (auto ok = objects_.check_destroy(kind, handle); !ok) return ok;
  Result<void> done;
  switch (kind) {
    case ObjectKind::kQp:
      done = destroy_handle(qps_.at(handle), ibv_destroy_qp, "ibv_destroy_qp");
      if (done) qps_.erase(handle);
      break;
    case ObjectKind::kCq:
      done = destroy_handle(cqs_.at(handle), ibv_destroy_cq, "ibv_destroy_cq");
      if (done) {
        cqs_.erase(handle);
        pending_events_.erase(handle);
      }
      break;
    case ObjectKind::kSrq:
      done = destroy_handle(srqs_.at(handle), ibv_destroy_srq, "ibv_destroy_srq");
      if (done) srqs_.erase(handle);
      break;
    case ObjectKind::kMr:
      done = destroy_handle(mrs_.at(handle).mr, ibv_dereg_mr, "ibv_dereg_mr");
      if (done) mrs_.erase(handle);  // unmaps the memory
      break;
    case ObjectKind::kPd:
      done = destroy_handle(pds_.at(handle), ibv_dealloc_pd, "ibv_dealloc_pd");
      if (done) pds_.erase(handle);
      break;
  }
  if (done) objects_.remove(kind, handle);
  return done;
}

Result<void> VerbsBackend::reset() {
  std::lock_guard lock(mutex_);
  clear_locked();
  return {};
}

Result<void> VerbsBackend::set_port(uint8_t /*plane*/, bool /*up*/) {
  return Unexpected(part2_not_supported("set_port (a plane's port, section 25.1)", "op"));
}

Result<transport::ext::EvState> VerbsBackend::set_ev_state(uint32_t /*qpn*/, uint16_t /*ev*/,
                                                           bool /*allowed*/) {
  return Unexpected(part2_not_supported("set_ev_state (an EV's state, section 25.1)", "op"));
}

}  // namespace mr::agent
