#include "harness/agent/reference_backend.h"

#include <algorithm>
#include <chrono>
#include <thread>
#include <utility>

#include "reference/memory/access.h"

namespace mr::agent {
namespace {

constexpr size_t kBurst = 64;
constexpr uint64_t kMillisecond = 1'000'000;
// A waiting poll_cq served by a DataPathThread looks at the device this often.
constexpr uint64_t kServedRecheckNs = 100'000;

// The Device and MemoryTable report errors as text; the protocol wants a code.
ControlError from_message(std::string message, std::string field = {}) {
  ErrorCode code = ErrorCode::kEinval;
  if (message.find("unknown") != std::string::npos) {
    code = ErrorCode::kEnoent;
  } else if (message.find("full") != std::string::npos ||
             message.find("exhausted") != std::string::npos ||
             message.find("no free") != std::string::npos) {
    code = ErrorCode::kEnospc;
  } else if (message.find("in use") != std::string::npos ||
             message.find("bound to it") != std::string::npos) {
    code = ErrorCode::kEbusy;
  }
  return ControlError{code, std::move(message), std::move(field)};
}

template <class T>
Result<T> lift(Expected<T, transport::VerbsError> r, const char* field = "") {
  if (!r) return Unexpected(from_message(std::move(r.error().message), field));
  if constexpr (std::is_void_v<T>) {
    return {};
  } else {
    return std::move(*r);
  }
}

// A Device message about one field starts with its name ("ev_set[3].plane: ...", "ev: ..."):
// the protocol's error names that field under `parent`; any other names `fallback`.
ControlError named_field_error(std::string message, std::string_view name,
                               const std::string& parent, const std::string& fallback) {
  const size_t colon = message.find(": ");
  const bool named = message.starts_with(name) && colon != std::string::npos &&
                     (colon == name.size() || message[name.size()] == '[');
  if (!named) return from_message(std::move(message), fallback);
  return from_message(message.substr(colon + 2), parent + message.substr(0, colon));
}

}  // namespace

ReferenceBackend::ReferenceBackend(io::Link& link, const io::Clock& clock,
                                   ReferenceBackendOptions options)
    : link_(link),
      clock_(clock),
      options_(std::move(options)),
      burst_(kBurst),
      queued_(link),
      node_(queued_, clock,
            io::NodeConfig{
                .mac = options_.mac, .ipv4 = options_.ipv4, .ipv6_global = options_.ipv6_global}) {
  node_.set_roce_handler([this](std::span<const uint8_t> frame, uint64_t /*timestamp*/) {
    device_->receive(frame, clock_.now_ns());
  });
  recreate_device();
}

ReferenceBackend::~ReferenceBackend() = default;

void ReferenceBackend::recreate_device() {
  transport::DeviceConfig config;
  config.mac = options_.mac;
  config.ip = options_.ipv4;
  config.ipv6 = options_.ipv6_global;
  config.ipv6.push_back(io::ipv6_link_local(options_.mac));
  config.seed = options_.seed;
  config.mutants = options_.mutants;
  config.decision_log = options_.decision_log;
  // Part II: QPs whose peer block allows it run in extension mode.
  config.mxcap = reference_mxcap();
  config.planes = config.mxcap->planes;
  config.ext.message_contexts = kReferenceExtOooMessages;
  device_ = std::make_unique<transport::Device>(config);
  objects_.clear();
}

void ReferenceBackend::pump_locked() {
  device_->advance(clock_.now_ns());
  std::vector<std::vector<uint8_t>> frames = device_->take_outbox();
  node_.send_burst(frames);
  device_->recycle(frames);  // the next frames are built in these buffers
}

size_t ReferenceBackend::service(uint64_t max_wait_ns) {
  uint64_t wait = max_wait_ns;
  {
    std::lock_guard lock(mutex_);
    const uint64_t now = clock_.now_ns();
    if (auto due = device_->next_deadline())
      wait = std::min(wait, *due > now ? clock_.real_duration_ns(*due - now) : 0);
    if (device_->has_work()) wait = 0;
  }
  std::lock_guard receiving(receive_mutex_);
  const size_t n = link_.receive_burst(burst_, wait);
  std::lock_guard lock(mutex_);
  for (size_t i = 0; i < n; ++i) queued_.push(std::move(burst_[i]));
  // The timers that fell due while the thread slept run first, at their own times
  // (Device::advance): a frame handled before them would move the device's clock past them.
  if (n > 0) device_->advance(clock_.now_ns());
  node_.poll(n, 0);
  pump_locked();
  return n;
}

std::optional<uint64_t> ReferenceBackend::next_deadline_ns() const {
  std::lock_guard lock(mutex_);
  return device_->next_deadline();
}

void ReferenceBackend::add_neighbor(const wire::Ipv4Address& ip, const wire::MacAddress& mac) {
  std::lock_guard lock(mutex_);
  node_.add_neighbor(ip, mac);
}

void ReferenceBackend::add_neighbor(const wire::Ipv6Address& ip, const wire::MacAddress& mac) {
  std::lock_guard lock(mutex_);
  node_.add_neighbor(ip, mac);
}

Result<uint32_t> ReferenceBackend::create_pd() {
  std::lock_guard lock(mutex_);
  auto pd = device_->memory().alloc_pd();
  if (!pd) return Unexpected(from_message(pd.error()));
  objects_.add_pd(*pd);
  return *pd;
}

Result<MrResult> ReferenceBackend::reg_mr(const RegMrArgs& args) {
  std::lock_guard lock(mutex_);
  if (auto ok = objects_.check(ObjectKind::kPd, args.pd, "pd"); !ok) return Unexpected(ok.error());
  if (auto bad = memory::check_mr_access(args.access)) {
    return control_error(ErrorCode::kEinval, *bad, "access");
  }
  auto mr = device_->memory().reg_mr(args.pd, args.length, args.access, args.va);
  if (!mr) return Unexpected(from_message(mr.error()));
  objects_.add_mr(mr->lkey, args.pd);
  return MrResult{mr->lkey, mr->rkey, mr->va, mr->length};
}

Result<void> ReferenceBackend::dereg_mr(uint32_t lkey) {
  std::lock_guard lock(mutex_);
  if (auto ok = objects_.check(ObjectKind::kMr, lkey, "lkey"); !ok) return ok;
  if (auto done = device_->memory().dereg_mr(lkey); !done) {
    return Unexpected(from_message(done.error(), "lkey"));
  }
  objects_.remove(ObjectKind::kMr, lkey);
  return {};
}

Result<uint32_t> ReferenceBackend::create_cq(uint32_t depth) {
  std::lock_guard lock(mutex_);
  auto cq = lift(device_->create_cq(depth), "depth");
  if (cq) objects_.add_cq(*cq);
  return cq;
}

Result<uint32_t> ReferenceBackend::create_srq(uint32_t max_wr) {
  std::lock_guard lock(mutex_);
  auto srq = lift(device_->create_srq(max_wr), "max_wr");
  if (srq) objects_.add_srq(*srq);
  return srq;
}

Result<uint32_t> ReferenceBackend::create_qp(const CreateQpArgs& args) {
  std::lock_guard lock(mutex_);
  const auto& init = args.init;
  for (auto ok : {objects_.check(ObjectKind::kPd, init.pd, "pd"),
                  objects_.check(ObjectKind::kCq, init.send_cq, "send_cq"),
                  objects_.check(ObjectKind::kCq, init.recv_cq, "recv_cq"),
                  init.srq ? objects_.check(ObjectKind::kSrq, *init.srq, "srq") : Result<void>{}}) {
    if (!ok) return Unexpected(ok.error());
  }
  auto qpn = lift(device_->create_qp(init));
  if (qpn) objects_.add_qp(*qpn, {init.pd, init.send_cq, init.recv_cq, init.srq});
  return qpn;
}

Result<transport::AddressVector> ReferenceBackend::resolve_av(const AvArgs& av) const {
  transport::AddressVector out;
  out.smac = options_.mac;
  out.dip = av.dip;
  out.sip = av.sip.value_or(transport::IpAddress(options_.ipv4));
  out.traffic_class = av.traffic_class;
  out.hop_limit = av.hop_limit;
  out.flow_label = av.flow_label;
  out.udp_sport = av.udp_sport;
  out.vlan_id = av.vlan_id;
  out.vlan_prio = av.vlan_prio;
  if (av.dmac) {
    out.dmac = *av.dmac;
    return out;
  }
  const auto mac = std::visit([&](const auto& ip) { return node_.lookup(ip); }, av.dip);
  if (!mac) {
    return control_error(ErrorCode::kEinval,
                         "not given, and dip is not in the neighbour cache (ARP/ND)",
                         "attrs.av.dmac");
  }
  out.dmac = *mac;
  return out;
}

Result<void> ReferenceBackend::modify_qp(const ModifyQpArgs& args) {
  std::lock_guard lock(mutex_);
  if (auto ok = objects_.check(ObjectKind::kQp, args.qpn, "qpn"); !ok) return ok;
  transport::QpAttributes attr = args.attr;
  if (args.av) {
    auto av = resolve_av(*args.av);
    if (!av) return Unexpected(av.error());
    attr.av = *av;
  }
  auto done = device_->modify_qp(args.qpn, attr, args.mask);
  pump_locked();
  if (!done) {
    const std::string& m = done.error().message;
    const std::string_view field = m.starts_with("secure_sa")       ? "secure_sa"
                                   : m.starts_with("secure_rotate") ? "secure_rotate"
                                                                    : "ev_set";
    return Unexpected(named_field_error(m, field, "attrs.", "attrs"));
  }
  return {};
}

Result<transport::QpAttributes> ReferenceBackend::query_qp(uint32_t qpn) {
  std::lock_guard lock(mutex_);
  if (auto ok = objects_.check(ObjectKind::kQp, qpn, "qpn"); !ok) return Unexpected(ok.error());
  auto attr = lift(device_->query_qp(qpn), "qpn");
  if (!attr) return attr;
  // The PSNs as they are now, as ibv_query_qp reports them (rxe: req.psn, resp.psn), not as
  // modify_qp set them: the next PSN the send queue sends and the one the responder expects.
  if (const transport::QueuePair* qp = device_->qp(qpn)) {
    attr->sq_psn = qp->next_psn;
    attr->rq_psn = qp->epsn;
  }
  return attr;
}

Result<void> ReferenceBackend::post_send(uint32_t qpn, const transport::SendWr& wr) {
  std::lock_guard lock(mutex_);
  if (auto ok = objects_.check(ObjectKind::kQp, qpn, "qpn"); !ok) return ok;
  if (!wr.ud) {
    auto done = lift(device_->post_send(qpn, wr), "wr");
    pump_locked();
    return done;
  }
  // A UD work request carries its own address handle: fill in the device's MAC and IP and
  // the destination MAC, as ibv_create_ah does.
  transport::SendWr ud_wr = wr;
  auto& ah = ud_wr.ud->ah;
  ah.smac = options_.mac;
  const bool v4 = std::holds_alternative<wire::Ipv4Address>(ah.dip);
  if (!v4) {
    return control_error(ErrorCode::kEnotsup, "UD address handles are IPv4 only here",
                         "wr.ud.ah.dip");
  }
  if (std::get<wire::Ipv4Address>(ah.sip) == wire::Ipv4Address{}) ah.sip = options_.ipv4;
  if (ah.dmac == wire::MacAddress{}) {
    auto mac = node_.lookup(std::get<wire::Ipv4Address>(ah.dip));
    if (!mac) {
      return control_error(ErrorCode::kEinval,
                           "not given, and dip is not in the neighbour cache (ARP)",
                           "wr.ud.ah.dmac");
    }
    ah.dmac = *mac;
  }
  auto done = lift(device_->post_send(qpn, ud_wr), "wr");
  pump_locked();
  return done;
}

Result<void> ReferenceBackend::post_recv(uint32_t qpn, const transport::RecvWr& wr) {
  std::lock_guard lock(mutex_);
  if (auto ok = objects_.check(ObjectKind::kQp, qpn, "qpn"); !ok) return ok;
  auto done = lift(device_->post_recv(qpn, wr), "wr");
  pump_locked();
  return done;
}

Result<void> ReferenceBackend::post_srq_recv(uint32_t srq, const transport::RecvWr& wr) {
  std::lock_guard lock(mutex_);
  if (auto ok = objects_.check(ObjectKind::kSrq, srq, "srq"); !ok) return ok;
  auto done = lift(device_->post_srq_recv(srq, wr), "wr");
  pump_locked();
  return done;
}

template <typename Reply, typename Attempt>
Reply ReferenceBackend::wait_for(uint32_t timeout_ms, Attempt attempt) {
  const uint64_t timeout_ns = uint64_t{std::min(timeout_ms, kMaxPollTimeoutMs)} * kMillisecond;
  const uint64_t deadline = clock_.now_ns() + timeout_ns;
  const bool served = served_by_thread_.load();
  if (!served) service(0);  // frames already delivered count, also on a virtual clock
  for (;;) {
    {
      std::lock_guard lock(mutex_);
      pump_locked();
      const bool last = clock_.is_virtual() || clock_.now_ns() >= deadline;
      if (std::optional<Reply> reply = attempt(last)) return std::move(*reply);
    }
    const uint64_t now = clock_.now_ns();
    const uint64_t left = deadline > now ? deadline - now : 0;
    if (served) {
      // The data-path thread receives; look again soon after it may have.
      std::this_thread::sleep_for(
          std::chrono::nanoseconds(std::min(kServedRecheckNs, clock_.real_duration_ns(left))));
    } else {
      service(std::min(kMillisecond, clock_.real_duration_ns(left)));
    }
  }
}

Result<std::vector<transport::Completion>> ReferenceBackend::poll_cq(const PollCqArgs& args) {
  using Reply = Result<std::vector<transport::Completion>>;
  return wait_for<Reply>(args.timeout_ms, [&](bool last) -> std::optional<Reply> {
    if (auto ok = objects_.check(ObjectKind::kCq, args.cq, "cq"); !ok) {
      return Reply(Unexpected(ok.error()));
    }
    auto polled = lift(device_->poll_cq(args.cq, args.max), "cq");
    if (!polled || !polled->empty() || last) return polled;
    return std::nullopt;
  });
}

Result<void> ReferenceBackend::req_notify_cq(uint32_t cq, bool solicited_only) {
  std::lock_guard lock(mutex_);
  if (auto ok = objects_.check(ObjectKind::kCq, cq, "cq"); !ok) return ok;
  return lift(device_->req_notify_cq(cq, solicited_only), "cq");
}

Result<uint32_t> ReferenceBackend::get_cq_events(uint32_t cq, uint32_t timeout_ms) {
  using Reply = Result<uint32_t>;
  return wait_for<Reply>(timeout_ms, [&](bool last) -> std::optional<Reply> {
    if (auto ok = objects_.check(ObjectKind::kCq, cq, "cq"); !ok) {
      return Reply(Unexpected(ok.error()));
    }
    auto events = lift(device_->take_cq_events(cq), "cq");
    if (!events) return Reply(Unexpected(events.error()));
    if (*events > 0 || last) return Reply(static_cast<uint32_t>(*events));
    return std::nullopt;
  });
}

Result<std::vector<uint8_t>> ReferenceBackend::read_mem(const MemArgs& args) {
  std::lock_guard lock(mutex_);
  if (auto ok = objects_.check(ObjectKind::kMr, args.lkey, "lkey"); !ok) {
    return Unexpected(ok.error());
  }
  auto bytes = device_->memory().read(args.lkey, args.va, args.length);
  if (!bytes) return Unexpected(from_message(bytes.error(), "va"));
  return std::move(*bytes);
}

Result<void> ReferenceBackend::write_mem(const MemArgs& args) {
  std::lock_guard lock(mutex_);
  if (auto ok = objects_.check(ObjectKind::kMr, args.lkey, "lkey"); !ok) return ok;
  auto done = device_->memory().write(args.lkey, args.va, args.data);
  if (!done) return Unexpected(from_message(done.error(), "va"));
  return {};
}

Result<std::vector<Counter>> ReferenceBackend::counters() {
  std::lock_guard lock(mutex_);
  std::vector<Counter> out;
  device_->counters().for_each([&](const char* name, uint64_t value) {
    out.push_back({name, value});
  });
  const auto& m = device_->memory().counters();
  for (const auto& [name, value] :
       {std::pair{"mem_pds_live", m.pds_live}, std::pair{"mem_mrs_live", m.mrs_live},
        std::pair{"mem_mr_bytes_live", m.mr_bytes_live},
        std::pair{"mem_remote_checks", m.remote_checks},
        std::pair{"mem_invalidations", m.invalidations}}) {
    out.push_back({name, value});
  }
  const auto& n = node_.counters();
  for (const auto& [name, value] :
       {std::pair{"node_received", n.received}, std::pair{"node_sent", n.sent},
        std::pair{"node_send_failures", n.send_failures},
        std::pair{"node_arp_replies_sent", n.arp_replies_sent},
        std::pair{"node_dropped", n.total_dropped()}}) {
    out.push_back({name, value});
  }
  return out;
}

Result<void> ReferenceBackend::destroy(ObjectKind kind, uint32_t handle) {
  std::lock_guard lock(mutex_);
  if (auto ok = objects_.check_destroy(kind, handle); !ok) return ok;
  switch (kind) {
    case ObjectKind::kQp:
      if (auto done = lift(device_->destroy_qp(handle), "handle"); !done) return done;
      break;
    case ObjectKind::kMr:
      if (auto done = device_->memory().dereg_mr(handle); !done) {
        return Unexpected(from_message(done.error(), "handle"));
      }
      break;
    case ObjectKind::kPd:
      if (auto done = device_->memory().dealloc_pd(handle); !done) {
        return Unexpected(from_message(done.error(), "handle"));
      }
      break;
    case ObjectKind::kCq:
    case ObjectKind::kSrq:
      // The Device has no destroy for these: the handle is forgotten here, and the queue
      // itself goes with the next reset.
      break;
  }
  objects_.remove(kind, handle);
  return {};
}

Result<void> ReferenceBackend::reset() {
  std::lock_guard lock(mutex_);
  recreate_device();
  return {};
}

Result<void> ReferenceBackend::set_port(uint8_t plane, bool up) {
  std::lock_guard lock(mutex_);
  const uint8_t planes = device_->config().planes;
  if (plane >= planes) {
    return control_error(ErrorCode::kEinval,
                         std::to_string(plane) + " is not a plane of this device (it has " +
                             std::to_string(planes) + ")",
                         "plane");
  }
  device_->set_plane_port(plane, up, clock_.now_ns());
  pump_locked();  // work held for a usable entry may go at once
  return {};
}

Result<transport::ext::EvState> ReferenceBackend::set_ev_state(uint32_t qpn, uint16_t ev,
                                                               bool allowed) {
  std::lock_guard lock(mutex_);
  if (auto ok = objects_.check(ObjectKind::kQp, qpn, "qpn"); !ok) return Unexpected(ok.error());
  auto state = device_->set_ev_allowed(qpn, ev, allowed);
  pump_locked();
  if (!state) return Unexpected(named_field_error(state.error().message, "ev", "", "qpn"));
  return *state;
}

Result<void> ReferenceBackend::set_mutants(const std::vector<std::string>& names) {
  mutants::MutantSet set;
  for (size_t i = 0; i < names.size(); ++i) {
    auto m = mutants::mutant_by_name(names[i]);
    if (!m) {
      return control_error(ErrorCode::kEinval, "unknown mutant",
                           "enable[" + std::to_string(i) + "]");
    }
    set.enable(*m);
  }
  std::lock_guard lock(mutex_);
  options_.mutants = set;
  recreate_device();  // a Device takes its mutants at construction
  return {};
}

}  // namespace mr::agent
