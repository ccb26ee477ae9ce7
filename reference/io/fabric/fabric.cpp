#include "reference/io/fabric/fabric.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "reference/io/ecn_mark.h"
#include "reference/io/fabric/packet_trimmer.h"
#include "reference/io/fabric/red_marking.h"

namespace mr::io::fabric {
namespace {

constexpr uint64_t kPsPerNs = 1000;
constexpr uint64_t kMaxStartNs = 24ULL * 3600 * 1'000'000'000;  // a day

uint64_t serialization_ps(uint64_t bytes, uint64_t rate_bps) {
  const auto bits_ps = static_cast<unsigned __int128>(bytes) * 8 * 1'000'000'000'000ULL;
  return static_cast<uint64_t>((bits_ps + rate_bps - 1) / rate_bps);
}

bool ecn_capable(const Packet& p) {
  const uint8_t ecn = p.traffic_class & 0x03;
  return ecn != kEcnNotEct && ecn != kEcnCe;
}

// Which endpoint of `plane` a frame is addressed to, if any.
std::optional<uint32_t> destination(const FabricConfig& config, uint32_t plane,
                                    const FrameHeaders& h) {
  if (h.ipv6) return config.addressing.endpoint_of(plane, h.dst_v6, config.endpoints);
  return config.addressing.endpoint_of(plane, h.dst_v4, config.endpoints);
}

}  // namespace

Expected<std::unique_ptr<Fabric>, FabricConfigError> Fabric::create(const Clock& clock,
                                                                    FabricConfig config) {
  // Picoseconds in 64 bits last 213 days; a clock far into them (CLOCK_MONOTONIC on a host up
  // for weeks) would overflow, and the config's fault times would count from its zero.
  if (clock.now_ns() > kMaxStartNs) {
    return Unexpected(FabricConfigError{
        "clock", "reads " + std::to_string(clock.now_ns()) +
                     " ns; the fabric needs one that starts near 0 (RealTimeFabric's counts "
                     "from its start)"});
  }
  if (auto ok = validate_fabric_config(config); !ok) return Unexpected(ok.error());
  return std::unique_ptr<Fabric>(new Fabric(clock, std::move(config)));  // NOLINT: private
}

Fabric::Fabric(const Clock& clock, FabricConfig config)
    : clock_(clock), config_(std::move(config)), topology_(FabricTopology::build(config_)) {
  ports_.resize(topology_.ports.size());
  for (uint32_t i = 0; i < ports_.size(); ++i) {
    Port& p = ports_[i];
    p.spec = topology_.ports[i];
    p.faults = link_faults(config_, p.spec.cable, i);
    p.red_random = SeededRandom(derive_seed(config_.seed, i, 0xec4));
    const auto degraded = static_cast<uint64_t>(
        std::llround(static_cast<double>(p.spec.params.rate_bps) * p.faults.rate_fraction));
    p.rate_bps = std::max<uint64_t>(1, degraded);
    if (!p.spec.from_switch) p.queue.set_arbitration(EgressQueue::Arbitration::kAlternate);
  }
  const size_t n = config_.planes.size() * config_.endpoints;
  rx_.resize(n);
  endpoint_ports_.reserve(n);
  for (uint32_t plane = 0; plane < config_.planes.size(); ++plane) {
    for (uint32_t e = 0; e < config_.endpoints; ++e) endpoint_ports_.emplace_back(*this, plane, e);
  }
  now_ps_ = clock_.now_ns() * kPsPerNs;
}

Fabric::~Fabric() = default;

FabricPort& Fabric::port(uint32_t plane, uint32_t endpoint) {
  return endpoint_ports_[plane * config_.endpoints + endpoint];
}

std::optional<uint64_t> Fabric::next_event_ns() {
  if (events_.empty()) return std::nullopt;
  return (events_.top().time_ps + kPsPerNs - 1) / kPsPerNs;
}

void Fabric::run_until(uint64_t t_ns) {
  const uint64_t limit = t_ns * kPsPerNs;
  while (!events_.empty() && events_.top().time_ps <= limit) {
    const Event e = events_.pop();
    now_ps_ = std::max(now_ps_, e.time_ps);
    run(e);
  }
  now_ps_ = std::max(now_ps_, limit);
}

void Fabric::run(const Event& e) {
  ++events_run_;
  const uint64_t length = e.kind == EventKind::kArrive ? pool_[e.packet].bytes.size() : uint64_t{0};
  trace_hash_ = mix64(trace_hash_ ^ e.time_ps);
  trace_hash_ = mix64(trace_hash_ ^ (uint64_t{e.port} << 8 | static_cast<uint64_t>(e.kind)));
  trace_hash_ = mix64(trace_hash_ ^ length);
  if (e.kind == EventKind::kTransmitDone) {
    Port& port = ports_[e.port];
    port.wake_pending = false;
    if (!port.queue.empty()) start_transmit(e.port);
    return;
  }
  arrive(e.port, e.packet);
}

void Fabric::drop(Port& port, uint32_t packet, DropCause cause) {
  ++port.counters.drops[static_cast<size_t>(cause)];
  pool_.release(packet);
}

// Switch egress admission: RED marking against the depth found, tail drop when the frame
// does not fit, or, with trimming, the frame cut and moved to the priority queue.
bool Fabric::admit_to_switch_queue(Port& port, uint32_t packet, bool& priority) {
  Packet& p = pool_[packet];
  const uint64_t depth = port.queue.normal_bytes();
  const uint64_t size = p.bytes.size();
  const Trimming& trim = config_.trimming;
  // A frame trimmed upstream keeps its mark, and every trimming switch maps the mark to
  // the priority queue.
  const uint8_t dscp = p.traffic_class >> 2;
  priority = trim.enabled && (dscp == trim.dscp || dscp == trim.last_hop_dscp);
  if (priority) return port.queue.priority_bytes() + size <= trim.priority_queue_bytes;
  if (depth + size > port.spec.params.queue_bytes) {
    const bool trimmable = trim.enabled && dscp != trim.never_trim_dscp;
    if (!trimmable) return false;
    trim_frame(p.bytes, p.headers, trim, port.spec.to_endpoint ? trim.last_hop_dscp : trim.dscp);
    p.traffic_class = traffic_class(p.bytes, p.headers);
    ++port.counters.trimmed;
    if (port.queue.priority_bytes() + p.bytes.size() > trim.priority_queue_bytes) return false;
    priority = true;
    return true;
  }
  if (config_.ecn.enabled && ecn_capable(p) && red_marks(config_.ecn, depth, port.red_random)) {
    if (mark_ecn_ce(p.bytes)) {
      p.traffic_class |= kEcnCe;
      ++port.counters.ecn_marked;
    }
  }
  return true;
}

void Fabric::enqueue(uint32_t port_id, uint32_t packet, bool response) {
  Port& port = ports_[port_id];
  if (port.faults.black_holed(now_ps_ / kPsPerNs)) {
    return drop(port, packet, DropCause::kBlackHole);
  }
  if (!port.faults.flaps.empty() && port.faults.down(now_ps_ / kPsPerNs)) {
    return drop(port, packet, DropCause::kLinkDown);
  }
  bool priority = response && !port.spec.from_switch;
  if (port.spec.from_switch) {
    if (!admit_to_switch_queue(port, packet, priority)) {
      return drop(port, packet, DropCause::kQueueOverflow);
    }
  } else if (endpoint_queued(port, priority) + pool_[packet].bytes.size() >
             port.spec.params.queue_bytes) {
    return drop(port, packet, DropCause::kQueueOverflow);  // send() checks first; defensive
  }
  port.queue.push({packet, static_cast<uint32_t>(pool_[packet].bytes.size())}, priority);
  port.counters.max_queue_bytes = std::max(port.counters.max_queue_bytes, port.queue.bytes());
  if (port.wake_pending) return;
  if (now_ps_ >= port.busy_until_ps) return start_transmit(port_id);
  port.wake_pending = true;
  events_.push({.time_ps = port.busy_until_ps, .kind = EventKind::kTransmitDone, .port = port_id});
}

void Fabric::start_transmit(uint32_t port_id) {
  Port& port = ports_[port_id];
  const EgressQueue::Entry entry = port.queue.pop();
  const uint64_t done =
      now_ps_ +
      serialization_ps(uint64_t{entry.bytes} + port.spec.params.overhead_bytes, port.rate_bps);
  port.busy_until_ps = done;
  ++port.counters.frames_sent;
  port.counters.bytes_sent += entry.bytes;
  if (!port.queue.empty()) {
    port.wake_pending = true;
    events_.push({.time_ps = done, .kind = EventKind::kTransmitDone, .port = port_id});
  }
  // Lost on the wire: serialized, never received (a bad FCS at the far end).
  if (port.faults.loss_random.chance(port.faults.loss_probability)) {
    return drop(port, entry.packet, DropCause::kRandomLoss);
  }
  events_.push({.time_ps = done + port.spec.params.propagation_ns * kPsPerNs,
                .kind = EventKind::kArrive,
                .port = port_id,
                .packet = entry.packet});
}

void Fabric::arrive(uint32_t port_id, uint32_t packet) {
  Port& port = ports_[port_id];
  const SwitchNode& node = topology_.nodes[port.spec.to_node];
  if (node.role != NodeRole::kEndpoint) {
    Packet& p = pool_[packet];
    return enqueue(node.next_port(p.dst_endpoint, p.flow), packet);
  }
  EndpointRx& in = rx(node.plane, node.index);
  if (in.frames.size() >= config_.endpoint_rx_frames) {
    return drop(port, packet, DropCause::kQueueOverflow);
  }
  pool_[packet].arrival_ps = now_ps_;
  in.frames.push_back(packet);
  if (!in.ready) {
    in.ready = true;
    ready_.push_back(node.plane * config_.endpoints + node.index);
  }
}

Expected<void, FabricConfigError> Fabric::add_black_hole(const BlackHole& hole) {
  FabricConfig next = config_;
  next.faults.black_holes.push_back(hole);
  if (auto ok = validate_fabric_config(next); !ok) return Unexpected(ok.error());
  config_ = std::move(next);
  for (Port& port : ports_) {
    if (covers(hole, port.spec.cable)) port.faults.add(hole);
  }
  return {};
}

std::vector<std::pair<uint32_t, uint32_t>> Fabric::take_ready_ports() {
  catch_up();
  std::vector<std::pair<uint32_t, uint32_t>> ports;
  ports.reserve(ready_.size());
  for (uint32_t i : ready_) {
    rx_[i].ready = false;
    ports.emplace_back(i / config_.endpoints, i % config_.endpoints);
  }
  ready_.clear();
  return ports;
}

size_t Fabric::send(uint32_t plane, uint32_t endpoint, std::span<const Frame> frames,
                    TransmitClass transmit_class) {
  catch_up();
  const uint32_t port_id = topology_.nodes[topology_.endpoint_node(plane, endpoint)].first_up_port;
  Port& port = ports_[port_id];
  const bool response = transmit_class == TransmitClass::kResponse;
  size_t accepted = 0;
  for (const Frame& f : frames) {
    // The NIC's ring is full: refuse this frame and the rest, as Link allows. The responder
    // has a ring of its own, as big.
    if (endpoint_queued(port, response) + f.bytes.size() > port.spec.params.queue_bytes) break;
    ++accepted;
    const uint32_t id = pool_.acquire();
    Packet& p = pool_[id];
    p.bytes.assign(f.bytes.begin(), f.bytes.end());
    const std::optional<FrameHeaders> h = parse_frame_headers(p.bytes);
    const std::optional<uint32_t> dst = h ? destination(config_, plane, *h) : std::nullopt;
    if (!dst) {
      drop(port, id, DropCause::kUnroutable);
      continue;
    }
    p.headers = *h;
    p.traffic_class = traffic_class(p.bytes, *h);
    p.flow = flow_key(*h, config_.ipv6_ecmp);
    p.dst_endpoint = *dst;
    enqueue(port_id, id, response);
  }
  return accepted;
}

size_t Fabric::receive(uint32_t plane, uint32_t endpoint, std::span<Frame> out) {
  catch_up();
  EndpointRx& in = rx(plane, endpoint);
  const uint64_t now_ps = clock_.now_ns() * kPsPerNs;
  size_t n = 0;
  while (n < out.size() && !in.frames.empty() && pool_[in.frames.front()].arrival_ps <= now_ps) {
    const uint32_t id = in.frames.pop_front();
    Packet& p = pool_[id];
    // A swap, not a copy: the caller's old buffer becomes the pool's spare.
    out[n].bytes.swap(p.bytes);
    out[n].timestamp_ns = (p.arrival_ps + kPsPerNs - 1) / kPsPerNs;
    pool_.release(id);
    ++n;
  }
  return n;
}

bool Fabric::link_up(uint32_t plane, uint32_t endpoint) const {
  const uint32_t port_id = topology_.nodes[topology_.endpoint_node(plane, endpoint)].first_up_port;
  const Port& port = ports_[port_id];
  return !port.faults.black_holed(clock_.now_ns()) && !port.faults.down(clock_.now_ns());
}

LinkCounters Fabric::counters(const CableRef& cable, LinkDirection direction) const {
  if (auto id = topology_.port_of(cable, direction)) return ports_[*id].counters;
  return {};
}

LinkCounters Fabric::plane_counters(uint32_t plane) const {
  LinkCounters sum;
  for (const Port& p : ports_) {
    if (p.spec.cable.plane == plane) sum += p.counters;
  }
  return sum;
}

}  // namespace mr::io::fabric
