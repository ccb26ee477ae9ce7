#include "reference/io/fabric/fabric_topology.h"

#include <algorithm>

#include "reference/io/fabric/seeded_random.h"

namespace mr::io::fabric {
namespace {

std::string node_name(const SwitchNode& n) {
  switch (n.role) {
    case NodeRole::kEndpoint:
      return "endpoint" + std::to_string(n.index);
    case NodeRole::kSwitch:
      return "switch";
    case NodeRole::kLeaf:
      return "leaf" + std::to_string(n.index);
    case NodeRole::kSpine:
      return "spine" + std::to_string(n.index);
  }
  return "?";
}

// Adds the nodes and ports of one plane. Nodes come first (endpoints, then switches),
// then each node's egress ports, so that a node's ports are contiguous.
class PlaneBuilder {
 public:
  PlaneBuilder(FabricTopology& t, const FabricConfig& config, uint32_t plane)
      : t_(t), config_(config), plane_(plane), topo_(config.planes[plane]) {}

  uint32_t build() {
    const uint32_t e_count = config_.endpoints;
    const uint32_t first_endpoint = add_nodes(NodeRole::kEndpoint, e_count);
    if (topo_.single_switch()) {
      const uint32_t sw = add_nodes(NodeRole::kSwitch, 1);
      for (uint32_t e = 0; e < e_count; ++e) {
        up_port(first_endpoint + e, sw, host_cable(e));
      }
      t_.nodes[sw].first_down_port = static_cast<uint32_t>(t_.ports.size());
      t_.nodes[sw].down_ports = e_count;
      for (uint32_t e = 0; e < e_count; ++e) {
        add_port(sw, first_endpoint + e, host_cable(e), LinkDirection::kDown, topo_.host_link);
      }
      return first_endpoint;
    }
    const uint32_t first_leaf = add_nodes(NodeRole::kLeaf, topo_.leaves);
    const uint32_t first_spine = add_nodes(NodeRole::kSpine, topo_.spines);
    const uint32_t h = topo_.hosts_per_leaf;
    for (uint32_t e = 0; e < e_count; ++e)
      up_port(first_endpoint + e, first_leaf + e / h, host_cable(e));
    for (uint32_t l = 0; l < topo_.leaves; ++l) {
      SwitchNode& leaf = t_.nodes[first_leaf + l];
      leaf.hosts_per_leaf = h;
      leaf.first_down_port = static_cast<uint32_t>(t_.ports.size());
      const uint32_t first_host = std::min(e_count, l * h);
      const uint32_t end_host = std::min(e_count, (l + 1) * h);
      leaf.down_ports = end_host - first_host;
      for (uint32_t e = first_host; e < end_host; ++e) {
        add_port(first_leaf + l, first_endpoint + e, host_cable(e), LinkDirection::kDown,
                 topo_.host_link);
      }
      t_.nodes[first_leaf + l].first_up_port = static_cast<uint32_t>(t_.ports.size());
      t_.nodes[first_leaf + l].up_ports = topo_.spines;
      for (uint32_t s = 0; s < topo_.spines; ++s) {
        add_port(first_leaf + l, first_spine + s, spine_cable(l, s), LinkDirection::kUp,
                 topo_.spine_link);
      }
    }
    for (uint32_t s = 0; s < topo_.spines; ++s) {
      SwitchNode& spine = t_.nodes[first_spine + s];
      spine.hosts_per_leaf = h;
      spine.first_down_port = static_cast<uint32_t>(t_.ports.size());
      spine.down_ports = topo_.leaves;
      for (uint32_t l = 0; l < topo_.leaves; ++l) {
        add_port(first_spine + s, first_leaf + l, spine_cable(l, s), LinkDirection::kDown,
                 topo_.spine_link);
      }
    }
    return first_endpoint;
  }

 private:
  CableRef host_cable(uint32_t e) const { return {plane_, CableTier::kHost, e, 0}; }
  CableRef spine_cable(uint32_t l, uint32_t s) const { return {plane_, CableTier::kSpine, l, s}; }

  uint32_t add_nodes(NodeRole role, uint32_t count) {
    const auto first = static_cast<uint32_t>(t_.nodes.size());
    for (uint32_t i = 0; i < count; ++i) {
      SwitchNode n;
      n.plane = plane_;
      n.role = role;
      n.index = i;
      n.ecmp_seed = derive_seed(config_.seed, 0xec3b, uint64_t{plane_} << 32 | (first + i));
      t_.nodes.push_back(n);
    }
    return first;
  }

  void up_port(uint32_t endpoint_node, uint32_t to, const CableRef& cable) {
    t_.nodes[endpoint_node].first_up_port = static_cast<uint32_t>(t_.ports.size());
    t_.nodes[endpoint_node].up_ports = 1;
    LinkParams params = topo_.host_link;
    params.queue_bytes = config_.endpoint_tx_queue_bytes;
    add_port(endpoint_node, to, cable, LinkDirection::kUp, params);
  }

  void add_port(uint32_t from, uint32_t to, const CableRef& cable, LinkDirection direction,
                const LinkParams& params) {
    PortSpec p;
    p.from_node = from;
    p.to_node = to;
    p.cable = cable;
    p.direction = direction;
    p.params = params;
    p.from_switch = t_.nodes[from].role != NodeRole::kEndpoint;
    p.to_endpoint = t_.nodes[to].role == NodeRole::kEndpoint;
    t_.ports.push_back(p);
  }

  FabricTopology& t_;
  const FabricConfig& config_;
  uint32_t plane_;
  const PlaneTopology& topo_;
};

}  // namespace

FabricTopology FabricTopology::build(const FabricConfig& config) {
  FabricTopology t;
  t.endpoints = config.endpoints;
  for (uint32_t p = 0; p < config.planes.size(); ++p) {
    t.endpoint_nodes_.push_back(PlaneBuilder(t, config, p).build());
  }
  return t;
}

std::optional<uint32_t> FabricTopology::port_of(const CableRef& cable,
                                                LinkDirection direction) const {
  // Small fabrics and a control-path question: a scan is enough.
  for (uint32_t i = 0; i < ports.size(); ++i) {
    if (ports[i].cable == cable && ports[i].direction == direction) return i;
  }
  return std::nullopt;
}

std::string FabricTopology::port_name(uint32_t port) const {
  const PortSpec& p = ports[port];
  return "plane" + std::to_string(p.cable.plane) + " " + node_name(nodes[p.from_node]) + "->" +
         node_name(nodes[p.to_node]);
}

}  // namespace mr::io::fabric
