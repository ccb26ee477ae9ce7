// File: fabric.h
//
// A switched multi-plane fabric simulated in virtual time (issue 22): endpoints with one
// FabricPort (a Link) per plane, planes of leaf-spine or single switches, ECMP on the
// flow's UDP ports or flow label, per-port FIFOs with RED-style ECN marking and trimming,
// and seeded faults (fabric_config.h). A discrete-event simulation: serialization takes
// bytes * 8 / rate, then the frame propagates; events run in time order, ties in the
// order they were scheduled, so a seed replays the same run bit for bit (trace_hash()).
//
// Time: the fabric reads "now" from a Clock and keeps its own events in picoseconds. In
// virtual time the simulation loop (a test, the FabricBed) jumps the clock to
// next_event_ns() and calls run_until(); ports also catch up to the clock on every send and
// receive, so a driver that only moves the clock stays correct. On the real clock
// RealTimeFabric runs it between network namespaces.
//
// Usage:
//   VirtualClock clock;
//   auto fabric = Fabric::create(clock, config).value();
//   fabric->port(/*plane=*/0, /*endpoint=*/3).send_burst(frames);
//   while (auto t = fabric->next_event_ns()) { clock.set(*t); fabric->run_until(*t); }
//   fabric->port(0, 9).receive_burst(in, 0);
//   LinkCounters c = fabric->plane_counters(0);
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "reference/error/expected.h"
#include "reference/io/clock.h"
#include "reference/io/fabric/egress_queue.h"
#include "reference/io/fabric/event_queue.h"
#include "reference/io/fabric/fabric_config.h"
#include "reference/io/fabric/fabric_counters.h"
#include "reference/io/fabric/fabric_port.h"
#include "reference/io/fabric/fabric_topology.h"
#include "reference/io/fabric/link_faults.h"
#include "reference/io/fabric/packet_pool.h"
#include "reference/io/fabric/ring_queue.h"
#include "reference/io/link.h"

namespace mr::io::fabric {

class Fabric {
 public:
  // Checks the config. A virtual clock for simulation, a real one for RealTimeFabric.
  static Expected<std::unique_ptr<Fabric>, FabricConfigError> create(const Clock& clock,
                                                                     FabricConfig config);
  // Ports refer to the fabric: it stays where it was made.
  Fabric(const Fabric&) = delete;
  Fabric& operator=(const Fabric&) = delete;
  ~Fabric();

  FabricPort& port(uint32_t plane, uint32_t endpoint);
  const FabricConfig& config() const { return config_; }
  const FabricTopology& topology() const { return topology_; }

  // A black hole decided while running (a script's plane failure, a scenario's failure of
  // the plane a flow uses), as if the config had held it; checked as the config is, the
  // error naming the field ("faults.black_holes[2].plane").
  Expected<void, FabricConfigError> add_black_hole(const BlackHole& hole);

  // When the next event happens (rounded up to a whole ns), if any is scheduled. Not
  // const: the event wheel orders its next bucket on the first look.
  std::optional<uint64_t> next_event_ns();
  // Runs every event due at or before t_ns.
  void run_until(uint64_t t_ns);

  // The ports (plane, endpoint) that received a frame since the last call, each once: a
  // driver of many endpoints reads only these instead of polling every port.
  std::vector<std::pair<uint32_t, uint32_t>> take_ready_ports();

  // Counters, per directed link (an index into topology().ports) and per plane.
  const LinkCounters& link_counters(uint32_t link) const { return ports_[link].counters; }
  LinkCounters counters(const CableRef& cable, LinkDirection direction) const;
  LinkCounters plane_counters(uint32_t plane) const;
  uint64_t queued_bytes(uint32_t link) const { return ports_[link].queue.bytes(); }

  // A running hash of every event run (time, kind, link, frame length): equal for two
  // runs exactly when they did the same thing at the same times.
  uint64_t trace_hash() const { return trace_hash_; }
  uint64_t events_run() const { return events_run_; }
  size_t frames_in_flight() const { return pool_.in_use(); }

  // FabricPort's implementation.
  size_t send(uint32_t plane, uint32_t endpoint, std::span<const Frame> frames,
              TransmitClass transmit_class = TransmitClass::kRequest);
  size_t receive(uint32_t plane, uint32_t endpoint, std::span<Frame> out);
  bool link_up(uint32_t plane, uint32_t endpoint) const;

 private:
  struct Port {
    PortSpec spec;
    EgressQueue queue;
    LinkFaults faults;
    SeededRandom red_random;
    uint64_t rate_bps = 0;  // after degradation
    LinkCounters counters;
    uint64_t busy_until_ps = 0;  // when the frame on the wire has left
    // A kTransmitDone is scheduled. Only a port with frames waiting needs one: a port that
    // goes idle just records busy_until_ps, which halves the events of a lightly loaded port.
    bool wake_pending = false;
  };
  struct EndpointRx {
    RingQueue<uint32_t> frames;  // arrived packets, in arrival order
    bool ready = false;          // listed in ready_ since the last take_ready_ports()
  };

  Fabric(const Clock& clock, FabricConfig config);
  void catch_up() { run_until(clock_.now_ns()); }
  void run(const Event& event);
  // `response`: an endpoint port's TransmitClass::kResponse frame (switch ports decide their
  // own priority).
  void enqueue(uint32_t port, uint32_t packet, bool response = false);
  // What an endpoint port's ring for its requester's (or responder's) frames holds.
  static uint64_t endpoint_queued(const Port& port, bool response) {
    return response ? port.queue.priority_bytes() : port.queue.normal_bytes();
  }
  bool admit_to_switch_queue(Port& port, uint32_t packet, bool& priority);
  void start_transmit(uint32_t port);
  void arrive(uint32_t port, uint32_t packet);
  void drop(Port& port, uint32_t packet, DropCause cause);
  EndpointRx& rx(uint32_t plane, uint32_t endpoint) {
    return rx_[plane * config_.endpoints + endpoint];
  }

  const Clock& clock_;
  FabricConfig config_;
  FabricTopology topology_;
  std::vector<Port> ports_;
  std::vector<EndpointRx> rx_;              // plane-major
  std::vector<uint32_t> ready_;             // indices into rx_, in the order they got a frame
  std::vector<FabricPort> endpoint_ports_;  // plane-major
  PacketPool pool_;
  EventQueue events_;
  uint64_t now_ps_ = 0;
  uint64_t trace_hash_ = 0;
  uint64_t events_run_ = 0;
};

}  // namespace mr::io::fabric
