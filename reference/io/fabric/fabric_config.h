// File: fabric_config.h
//
// What a multi-plane switched fabric looks like: P planes, each a single switch or a
// two-tier leaf-spine; the rate, propagation delay and egress buffer of its links; how
// its switches mark ECN (RED-style on queue depth) and trim (spec section 23, revision 2);
// and the failures to inject, every random choice drawn from one seed. A plain value type:
// build one with designated initializers, check it with validate_fabric_config(), which
// names the first wrong field.
//
// Cables are named by CableRef: the cable of endpoint e to its leaf (or single switch) on
// plane p, or the cable between leaf l and spine s on plane p. A fault on a cable applies
// to both of its directions.
//
// Usage:
//   FabricConfig config{.endpoints = 16, .seed = 7};
//   config.planes.assign(8, PlaneTopology{.leaves = 4, .spines = 4, .hosts_per_leaf = 4});
//   config.faults.black_holes.push_back({.plane = 3});
//   if (auto ok = validate_fabric_config(config); !ok) fail(ok.error().to_string());
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "reference/error/expected.h"
#include "reference/io/fabric/fabric_address.h"

namespace mr::io::fabric {

struct LinkParams {
  uint64_t rate_bps = 100'000'000'000;  // 100 Gbit/s
  uint64_t propagation_ns = 500;        // about 100 m of fibre
  uint64_t queue_bytes = 256 * 1024;    // egress buffer, waiting bytes (not the one on the wire)
  // Bytes the wire spends per frame beyond the frame (preamble 8 + FCS 4 + gap 12 = 24 on
  // real Ethernet); 0 makes serialization exactly frame bytes * 8 / rate.
  uint32_t overhead_bytes = 0;
  friend bool operator==(const LinkParams&, const LinkParams&) = default;
};

// One plane: a single switch (leaves == 0) or leaf-spine. Endpoint e attaches to leaf
// e / hosts_per_leaf, so leaves * hosts_per_leaf must cover every endpoint.
struct PlaneTopology {
  uint32_t leaves = 0;  // 0: one switch joining every endpoint
  uint32_t spines = 0;
  uint32_t hosts_per_leaf = 0;
  LinkParams host_link;   // endpoint <-> leaf (or the single switch)
  LinkParams spine_link;  // leaf <-> spine
  bool single_switch() const { return leaves == 0; }
  friend bool operator==(const PlaneTopology&, const PlaneTopology&) = default;
};

// RED-style marking at enqueue on every switch egress port: with `depth` bytes already
// waiting, an ECN-capable frame is marked CE with probability 0 at or below kmin_bytes,
// rising linearly to max_probability at kmax_bytes, and 1 above kmax_bytes (DCQCN's
// switch profile). Non-ECT frames are never marked.
struct EcnMarking {
  bool enabled = false;
  uint64_t kmin_bytes = 20 * 1024;
  uint64_t kmax_bytes = 200 * 1024;
  double max_probability = 0.01;
  friend bool operator==(const EcnMarking&, const EcnMarking&) = default;
};

// Spec section 23: a data frame that would overflow its egress queue is cut to ip_bytes
// of IP packet, its DSCP rewritten (last_hop_dscp on a port facing an endpoint), and put in
// a strict-priority queue of its own. Revision 2 allows both ways for the length fields,
// and the SONiC test plan's switches recompute neither them nor the IPv4 checksum.
struct Trimming {
  bool enabled = false;
  uint32_t ip_bytes = 128;              // B_TRIM_MIN
  uint8_t dscp = 10;                    // V_TRIM_DSCP
  uint8_t last_hop_dscp = 11;           // V_TRIM_DSCP_LASTHOP
  bool rewrite_lengths = true;          // IPv4 total length / IPv6 payload length, UDP length
  bool recompute_ipv4_checksum = true;  // after the DSCP (and length) rewrite
  uint64_t priority_queue_bytes = 64 * 1024;
  // Frames with this DSCP go to a queue that never trims (spec 23: V_TR_CTRL_DSCP, 46): they
  // are dropped at the tail instead.
  std::optional<uint8_t> never_trim_dscp = 46;
  friend bool operator==(const Trimming&, const Trimming&) = default;
};

// How an IPv6 frame picks among equal paths: by (src, dst, flow label), the brief of spec
// 20.2's FLOW mode, or by (src, dst, UDP ports) as for IPv4, which EV mode UDP over IPv6
// needs to spray.
enum class Ipv6EcmpKey : uint8_t { kFlowLabel, kPorts };

enum class CableTier : uint8_t { kHost, kSpine };
struct CableRef {
  uint32_t plane = 0;
  CableTier tier = CableTier::kHost;
  uint32_t a = 0;  // kHost: the endpoint; kSpine: the leaf
  uint32_t b = 0;  // kSpine: the spine
  friend bool operator==(const CableRef&, const CableRef&) = default;
};

// Silently discards every frame offered to it from from_ns on: a whole plane, or one cable.
struct BlackHole {
  uint32_t plane = 0;
  std::optional<CableRef> cable;  // none: every cable of the plane
  uint64_t from_ns = 0;           // a failure mid-run: the frames before it pass
};

// Down from down_ns until up_ns; with period_ns > 0, that pattern repeats every period.
struct LinkFlap {
  CableRef cable;
  uint64_t down_ns = 0;
  uint64_t up_ns = 0;
  uint64_t period_ns = 0;
};

struct DegradedLink {
  CableRef cable;
  double rate_fraction = 1.0;  // (0, 1]: the link runs at rate * fraction
};

struct RandomLoss {
  std::optional<CableRef> cable;  // none: every link of the fabric
  double probability = 0;         // per frame per link, drawn from the seed
};

struct FabricFaults {
  std::vector<BlackHole> black_holes;
  std::vector<LinkFlap> flaps;
  std::vector<DegradedLink> degraded;
  std::vector<RandomLoss> losses;
};

struct FabricConfig {
  uint32_t endpoints = 2;
  std::vector<PlaneTopology> planes = {PlaneTopology{}};
  FabricAddressing addressing;
  EcnMarking ecn;
  Trimming trimming;
  Ipv6EcmpKey ipv6_ecmp = Ipv6EcmpKey::kFlowLabel;
  FabricFaults faults;
  uint64_t seed = 1;  // ECMP hash seeds, RED draws and random loss all derive from it
  // Bytes each of an endpoint port's two transmit rings (its requester's, its responder's)
  // accepts, and the frames it holds received.
  uint64_t endpoint_tx_queue_bytes = 1024 * 1024;
  uint32_t endpoint_rx_frames = 4096;
};

struct FabricConfigError {
  std::string field;   // "planes[2].spines", "faults.flaps[0].up_ns"
  std::string reason;  // one sentence
  std::string to_string() const { return field + ": " + reason; }
};

Expected<void, FabricConfigError> validate_fabric_config(const FabricConfig& config);

// True when the cable is part of the configured topology.
bool cable_exists(const FabricConfig& config, const CableRef& cable);

}  // namespace mr::io::fabric
