#include "reference/testbed/fabric_bed.h"

#include <algorithm>
#include <optional>
#include <span>
#include <utility>

#include "reference/io/fabric/frame_headers.h"
#include "reference/wire/opcode.h"

namespace mr::testbed {
namespace {

// The opcode table's row for the BTH opcode after the headers the fabric reads, if any.
const wire::OpcodeInfo* opcode_of(std::span<const uint8_t> frame) {
  const std::optional<io::fabric::FrameHeaders> h = io::fabric::parse_frame_headers(frame);
  if (!h || !h->udp) return nullptr;
  const size_t bth = h->l3_offset + h->ip_header_bytes + 8;
  if (frame.size() <= bth) return nullptr;
  return wire::opcode_info(frame[bth]);
}

// A request packet (SEND, WRITE, READ request, atomic).
bool is_request(const wire::OpcodeInfo* info) {
  return info != nullptr && info->is(wire::kRequest);
}

// What a NIC's responder and notification point send (READ responses, ACK and NAK, atomic
// ACK, CNP, CREDIT), which its transmit arbiter serves in turn with its requester's.
bool is_response(const wire::OpcodeInfo* info) {
  return info != nullptr && (info->is(wire::kResponse) || info->is(wire::kAck) ||
                             info->is(wire::kCnp) || info->is(wire::kCredit));
}

}  // namespace

using io::fabric::FabricConfig;

FabricBed::FabricBed(FabricConfig fabric, BedDeviceOptions devices)
    : config_(std::move(fabric)), options_(devices) {}

Expected<std::unique_ptr<FabricBed>, std::string> FabricBed::create(FabricConfig fabric,
                                                                    BedDeviceOptions devices) {
  if (!fabric.addressing.shared) {
    return Unexpected<std::string>(std::string(
        "addressing.shared: must be true: a device has one address on all of its planes"));
  }
  std::unique_ptr<FabricBed> bed(new FabricBed(std::move(fabric), devices));
  auto made = io::fabric::Fabric::create(bed->clock_, bed->config_);
  if (!made) return Unexpected<std::string>(made.error().to_string());
  bed->fabric_ = std::move(*made);
  const auto planes = static_cast<uint8_t>(bed->config_.planes.size());
  const auto& plan = bed->config_.addressing;
  for (uint32_t e = 0; e < bed->config_.endpoints; ++e) {
    transport::DeviceConfig c;
    c.mac = plan.mac(0, e);
    c.ip = plan.ipv4(0, e);
    c.seed = bed->options_.seed + e;
    c.mxcap = bed->options_.mxcap;
    c.ext = bed->options_.ext;
    c.dcqcn = bed->options_.dcqcn;
    c.cnp_notification_point = c.cnp_reaction_point = bed->options_.dcqcn_enabled;
    c.planes = planes;
    Endpoint ep;
    ep.device = std::make_unique<transport::Device>(std::move(c));
    ep.pd = *ep.device->memory().alloc_pd();
    auto cq = ep.device->create_cq(bed->options_.cq_depth);
    if (!cq) return Unexpected<std::string>("cq_depth: " + cq.error().message);
    ep.cq = *cq;
    bed->devices_.push_back(std::move(ep));
  }
  const size_t ports = size_t{planes} * bed->config_.endpoints;
  bed->backlog_.resize(ports);
  bed->port_up_.assign(ports, 1);
  const auto& f = bed->config_.faults;
  // Faults can also be added while running (Fabric::add_black_hole): any multi-plane bed
  // watches its ports.
  bed->watch_ports_ = !f.flaps.empty() || !f.black_holes.empty() || planes > 1;
  return bed;
}

Expected<RcConnection, std::string> FabricBed::connect(uint32_t a, uint32_t b,
                                                       const ConnectOptions& o) {
  if (a >= endpoints() || b >= endpoints() || a == b)
    return Unexpected<std::string>("connect: endpoints " + std::to_string(a) + " and " +
                                   std::to_string(b) + " are not two of the bed's " +
                                   std::to_string(endpoints()));
  Endpoint& ea = devices_[a];
  Endpoint& eb = devices_[b];
  return connect_rc({.device = *ea.device, .pd = ea.pd, .cq = ea.cq, .endpoint = a},
                    {.device = *eb.device, .pd = eb.pd, .cq = eb.cq, .endpoint = b}, o);
}

void FabricBed::touch(uint32_t endpoint) { devices_[endpoint].due = true; }

// The device's timers and requesters run, and what it sent goes to its planes' ports.
void FabricBed::run_endpoint(uint32_t e, uint64_t now) {
  Endpoint& ep = devices_[e];
  ep.device->advance(now);
  std::vector<uint8_t> planes;
  std::vector<std::vector<uint8_t>> frames = ep.device->take_outbox(planes);
  for (size_t i = 0; i < frames.size(); ++i) {
    const size_t port = size_t{planes[i]} * config_.endpoints + e;
    TransmitBacklog& b = backlog_[port];
    const wire::OpcodeInfo* info = opcode_of(frames[i]);
    if (is_request(info)) ++request_frames_;
    if (b.empty()) backlogged_.push_back(static_cast<uint32_t>(port));
    std::deque<io::Frame>& q = options_.nic_arbiter && is_response(info) ? b.responses : b.requests;
    q.push_back(io::Frame{std::move(frames[i]), now});
    backlog_high_water_ =
        std::max<uint64_t>(backlog_high_water_, b.responses.size() + b.requests.size());
  }
  ep.deadline = ep.device->next_deadline();
  ep.due = false;
  if (after_run) after_run(e, now);
}

// Each backlog goes to its port as far as the NIC's rings take it, oldest first, the
// responder's frames into the ring of their own.
void FabricBed::flush_backlogs() {
  using io::fabric::TransmitClass;
  std::erase_if(backlogged_, [&](uint32_t port) {
    TransmitBacklog& b = backlog_[port];
    io::fabric::FabricPort& link =
        fabric_->port(port / config_.endpoints, port % config_.endpoints);
    auto drain = [&](std::deque<io::Frame>& q, TransmitClass c) {
      while (!q.empty() && link.send_burst(std::span<const io::Frame>(&q.front(), 1), c) == 1)
        q.pop_front();
    };
    drain(b.responses, TransmitClass::kResponse);
    drain(b.requests, TransmitClass::kRequest);
    return b.empty();
  });
}

// Port state as the device's PHY would see it (spec 25.1: plane port up/down).
void FabricBed::poll_ports(uint64_t now) {
  if (!watch_ports_ || now < next_port_poll_ns_) return;
  next_port_poll_ns_ = now + kPortPollNs;
  for (size_t port = 0; port < port_up_.size(); ++port) {
    const auto plane = static_cast<uint32_t>(port / config_.endpoints);
    const auto e = static_cast<uint32_t>(port % config_.endpoints);
    const bool up = fabric_->port(plane, e).link_up();
    if (up == (port_up_[port] != 0)) continue;
    port_up_[port] = up ? 1 : 0;
    devices_[e].device->set_plane_port(static_cast<uint8_t>(plane), up, now);
    devices_[e].due = true;
  }
}

std::optional<uint64_t> FabricBed::next_time() {
  std::optional<uint64_t> next = fabric_->next_event_ns();
  for (const Endpoint& ep : devices_) {
    if (ep.due) return clock_.now_ns();
    if (ep.deadline && (!next || *ep.deadline < *next)) next = ep.deadline;
  }
  if (watch_ports_ && next) next = std::min(*next, std::max(next_port_poll_ns_, clock_.now_ns()));
  return next;
}

bool FabricBed::run_until(const std::function<bool()>& done, uint64_t max_ns) {
  const uint64_t end = clock_.now_ns() + max_ns;
  std::vector<io::Frame> in(64);
  // Bounded by virtual time and by a step budget: every step moves time or drains work.
  for (uint64_t budget = 0; budget < 2'000'000'000ULL; ++budget) {
    if (done()) return true;
    const std::optional<uint64_t> next = next_time();
    if (!next || *next > end) return done();
    const uint64_t now = std::max(*next, clock_.now_ns());
    clock_.set(now);
    ++steps_;
    fabric_->run_until(now);
    poll_ports(now);
    for (auto [plane, e] : fabric_->take_ready_ports()) {
      io::fabric::FabricPort& port = fabric_->port(plane, e);
      for (size_t n = port.receive_burst(in, 0); n > 0; n = port.receive_burst(in, 0)) {
        for (size_t i = 0; i < n; ++i) devices_[e].device->receive(in[i].bytes, now);
      }
      devices_[e].due = true;
    }
    for (uint32_t e = 0; e < devices_.size(); ++e) {
      Endpoint& ep = devices_[e];
      if (ep.due || (ep.deadline && *ep.deadline <= now)) run_endpoint(e, now);
    }
    flush_backlogs();
  }
  return done();
}

}  // namespace mr::testbed
