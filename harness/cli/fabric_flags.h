// File: fabric_flags.h
//
// What `metaroce fabric`'s flags say, and the io::fabric::FabricConfig they make: the
// real-time fabric (reference/io/fabric/real_time_fabric.h) between interfaces that the
// caller already put in place, so that a tester and a DUT in their own network namespaces
// talk through switches, ECMP, queues, ECN marking, trimming and seeded loss, as on a
// real multi-plane fabric.
//
// Endpoint e is the e-th --endpoint; its interfaces are its ports, one per plane, so every
// --endpoint lists the same number. Addresses are shared across planes (FabricAddressing's
// `shared`: endpoint e is 198.18.0.<e+1>, fd00::<e+1>, 02:00:00:00:00:<e+1> on every plane),
// as the reference device's planes share its one address (spec 20.1).
//
//   FabricFlags f{.endpoints = {"fa", "fb"}, .leaves = 2, .spines = 4};
//   auto config = fabric_config_from(f);   // or an error naming the flag
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "reference/error/expected.h"
#include "reference/io/fabric/fabric_config.h"

namespace mr::cli {

struct FabricFlags {
  std::vector<std::string> endpoints;  // --endpoint IF[,IF...]: one entry per endpoint
  uint32_t leaves = 0;                 // --leaves: 0 is one switch joining every endpoint
  uint32_t spines = 0;                 // --spines
  double rate_gbps = 100;              // --rate-gbps: every cable
  double delay_us = 0.5;               // --delay-us: every cable's propagation delay
  uint64_t queue_kib = 256;            // --queue-kib: every egress buffer
  bool ecn = false;                    // --ecn: RED marking with the default profile
  bool trim = false;                   // --trim: spec 23 trimming with revision 2's defaults
  double loss_percent = 0;             // --loss: seeded random loss on every cable
  std::string ipv6_ecmp = "flow";      // --ipv6-ecmp: flow (the flow label) or ports
  uint64_t seed = 1;                   // --seed
};

// The interfaces of each endpoint, [endpoint][plane], split from the --endpoint lists.
std::vector<std::vector<std::string>> endpoint_interfaces(const FabricFlags& flags);

// The fabric the flags describe; an error names the flag ("--spines: a leaf-spine fabric
// needs at least one spine") or the config field validate_fabric_config() refused.
Expected<io::fabric::FabricConfig, std::string> fabric_config_from(const FabricFlags& flags);

}  // namespace mr::cli
