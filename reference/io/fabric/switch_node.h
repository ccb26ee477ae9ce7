// File: switch_node.h
//
// A node of one plane and how it forwards: an endpoint's port (one uplink), the single
// switch of a one-switch plane, a leaf, or a spine. A node's egress ports are contiguous:
// its down ports first (to endpoints, or a spine's to leaves), then its up ports (a
// leaf's to spines). Forwarding is by destination endpoint; a leaf with the destination
// elsewhere hashes the flow onto one of its spines (ECMP) with its own seed.
#pragma once

#include <cstdint>

#include "reference/io/fabric/ecmp_hash.h"

namespace mr::io::fabric {

enum class NodeRole : uint8_t { kEndpoint, kSwitch, kLeaf, kSpine };

struct SwitchNode {
  uint32_t plane = 0;
  NodeRole role = NodeRole::kEndpoint;
  uint32_t index = 0;  // endpoint, leaf or spine number within its role and plane
  uint64_t ecmp_seed = 0;
  uint32_t first_down_port = 0;
  uint32_t down_ports = 0;
  uint32_t first_up_port = 0;
  uint32_t up_ports = 0;
  uint32_t hosts_per_leaf = 0;  // leaves and spines: which leaf an endpoint hangs off

  // The egress port toward `dst_endpoint`.
  uint32_t next_port(uint32_t dst_endpoint, const FlowKey& flow) const {
    switch (role) {
      case NodeRole::kEndpoint:
        return first_up_port;
      case NodeRole::kSwitch:
        return first_down_port + dst_endpoint;
      case NodeRole::kLeaf: {
        const uint32_t leaf = dst_endpoint / hosts_per_leaf;
        if (leaf == index) return first_down_port + dst_endpoint % hosts_per_leaf;
        return first_up_port + ecmp_pick(ecmp_hash(flow, ecmp_seed), up_ports);
      }
      case NodeRole::kSpine:
        return first_down_port + dst_endpoint / hosts_per_leaf;
    }
    return first_up_port;
  }
};

}  // namespace mr::io::fabric
