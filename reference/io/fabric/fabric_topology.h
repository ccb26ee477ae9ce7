// File: fabric_topology.h
//
// The fabric as a graph, built from a validated FabricConfig: the nodes of every plane
// (switch_node.h) and every directed link, each an egress port of one node cabled to
// another, with the cable it belongs to and its parameters. Plain data: the simulation
// (fabric.h) adds queues and counters per port, and nothing here changes after build.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "reference/io/fabric/fabric_config.h"
#include "reference/io/fabric/switch_node.h"

namespace mr::io::fabric {

// Up: endpoint to leaf (or switch), leaf to spine. Down: the other way.
enum class LinkDirection : uint8_t { kUp, kDown };

struct PortSpec {
  uint32_t from_node = 0;
  uint32_t to_node = 0;
  CableRef cable;
  LinkDirection direction = LinkDirection::kUp;
  LinkParams params;
  bool from_switch = false;  // marks, trims and tail-drops; an endpoint's port does not
  bool to_endpoint = false;  // the last hop: trimmed frames get the last-hop DSCP
};

struct FabricTopology {
  std::vector<SwitchNode> nodes;
  std::vector<PortSpec> ports;
  uint32_t endpoints = 0;

  // Node of endpoint e on plane p.
  uint32_t endpoint_node(uint32_t plane, uint32_t endpoint) const {
    return endpoint_nodes_[plane] + endpoint;
  }
  std::optional<uint32_t> port_of(const CableRef& cable, LinkDirection direction) const;
  std::string port_name(uint32_t port) const;

  static FabricTopology build(const FabricConfig& config);

 private:
  std::vector<uint32_t> endpoint_nodes_;  // per plane: node of endpoint 0
};

}  // namespace mr::io::fabric
