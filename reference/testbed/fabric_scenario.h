// File: fabric_scenario.h
//
// A workload on a FabricBed and what it achieved (issue 22's "what it buys"): flows of RDMA
// WRITEs (or READs) between endpoints, each posted as messages at its start time, run in
// virtual time until every flow completes or fails or the time bound passes; then every
// destination region is compared with the pattern its source held. The same Scenario with `mxcap`
// set (Part II) and unset (base RoCEv2: go-back-N, DCQCN) on the same fabric and seed gives the
// side by side figures of `./metaroce bench fabric`.
//
//   Scenario s{.name = "loss-1%", .fabric = f, .flows = {{.src = 0, .dst = 1, .bytes = 16 << 20}}};
//   s.mxcap = wire::Mxcap{};
//   ScenarioOutcome ext = run_scenario(s).value();
//   s.mxcap.reset();
//   ScenarioOutcome base = run_scenario(s).value();
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "reference/error/expected.h"
#include "reference/io/fabric/fabric_config.h"
#include "reference/testbed/fabric_bed.h"

namespace mr::testbed {

struct Flow {
  uint32_t src = 0;
  uint32_t dst = 0;
  uint64_t bytes = 0;
  uint64_t start_ns = 0;
};

// A plane that fails silently mid-run: every leaf-spine cable of it (or, on single-switch
// planes, every cable) black-holed from at_ns on.
struct PlaneFailure {
  uint64_t at_ns = 0;
  // None: the plane flow 0's requester QP keeps to as a base QP (Device::base_plane). QPNs come
  // from the seed, so the Ext and base runs of one seed lose the same plane, and base
  // RoCEv2 is shown losing a path it uses.
  std::optional<uint32_t> plane;
};

struct Scenario {
  std::string name;
  io::fabric::FabricConfig fabric;  // run_scenario sets addressing.shared
  std::vector<Flow> flows;
  uint32_t message_bytes = 1 << 20;  // a flow is ceil(bytes / message_bytes) messages
  // kWrite: src writes into dst; kRead: src reads dst's bytes into its own region.
  transport::SendOpcode opcode = transport::SendOpcode::kWrite;
  std::optional<wire::Mxcap> mxcap;  // none: base RoCEv2
  transport::ext::ExtQpParameters ext;
  ConnectOptions connection;
  std::optional<PlaneFailure> failure;
  uint64_t max_ns = 2'000'000'000;  // virtual time bound
  // > 0: sample the bytes acknowledged to the senders every timeline_ns of virtual time
  // (ScenarioOutcome::timeline), what goodput over time and recovery are read from.
  uint64_t timeline_ns = 0;
};

struct FlowOutcome {
  bool completed = false;  // every message completed successfully
  bool failed = false;     // some message completed with an error (the QP is in Error)
  bool data_ok = false;    // the destination region holds what the source held
  uint64_t finish_ns = 0;  // the last completion, from the flow's start
};

struct ScenarioOutcome {
  std::vector<FlowOutcome> flows;
  uint32_t completed = 0;
  uint32_t failed = 0;
  uint32_t data_mismatches = 0;  // completed flows whose bytes differ
  uint64_t last_finish_ns = 0;   // the last completion of a completed flow, from time 0
  uint64_t delivered_bytes = 0;  // of completed flows
  uint64_t needed_bytes = 0;     // of every flow
  uint64_t request_frames = 0;   // sent, retransmissions included
  uint64_t needed_frames = 0;    // the packets the messages need
  uint64_t fabric_drops = 0;
  uint64_t overflow_drops = 0;  // of those, tail drops at a full queue (congestion)
  uint64_t fabric_trims = 0;    // frames a trimming switch cut instead of dropping
  uint64_t trim_naks = 0;       // NAK 0x65 and 0x66 the devices sent for them
  uint64_t credit_raises = 0;   // credit limits raised by receivers (section 26.7)
  uint64_t credit_packets = 0;  // of those, sent in CREDIT packets
  uint64_t fabric_events = 0;
  uint64_t ev_assumed_bad = 0;
  uint64_t min_rtt_ns = 0;  // the smallest RTT an Ext sender measured: the fabric's base RTT
  std::optional<uint32_t> failed_plane;
  uint64_t steps = 0;
  double wall_seconds = 0;
  // With Scenario::timeline_ns: timeline[k] is the payload the senders of every flow had
  // acknowledged (cumulatively or selectively) by k x timeline_ns, from time 0 to the end.
  std::vector<uint64_t> timeline;
  // At the same instants, with a failure: the frames the flows' sources had sent into the
  // failed plane (their host cables to it): when a sender stopped using the plane.
  std::vector<uint64_t> failed_plane_timeline;
  // Completion time of the p-th percentile flow (0 < p <= 100), completed flows only.
  uint64_t percentile_finish_ns(double p) const;
  uint64_t retransmitted() const {
    return request_frames > needed_frames ? request_frames - needed_frames : 0;
  }
};

// Errors: the bed's (a field of the fabric config) or a flow naming an endpoint the fabric
// does not have ("flows[3].dst: ...").
Expected<ScenarioOutcome, std::string> run_scenario(const Scenario& scenario);

}  // namespace mr::testbed
