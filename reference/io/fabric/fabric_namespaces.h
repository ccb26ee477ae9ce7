// File: fabric_namespaces.h
//
// The network namespaces that put the fabric between real hosts (issue 22, real time): one
// namespace for the fabric and one per endpoint, and for every endpoint and plane a veth
// pair with one end in the endpoint's namespace (its NIC port on that plane) and the other
// in the fabric's (the fabric's host cable to it). Nothing is created in the root
// namespace; everything goes when the FabricNamespaces does.
//
// Each endpoint port carries the MAC of the fabric's addressing plan for its plane and
// endpoint, so that what the fabric delivers is addressed to it. With `kernel_addresses`
// the kernel in each endpoint namespace also holds the plan's IPv4 address on each port and
// a permanent neighbour entry for every other endpoint of the plane (the fabric forwards
// IP, not ARP), so that kernel traffic (ping) crosses the fabric as RoCE does.
//
//   auto net = FabricNamespaces::create(config, {.kernel_addresses = true}).value();
//   auto links = net->open_fabric_links().value();   // must outlive the fabric
//   auto fabric = RealTimeFabric::start(config, links).value();
//   kernel_ping(net->endpoint(0), "198.18.0.2", FabricNamespaces::endpoint_interface(0), 1, ...);
// (RealTimeFabricBed, real_time_fabric.h, does the three in one.)
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "reference/error/expected.h"
#include "reference/io/fabric/fabric_config.h"
#include "reference/io/network_namespace.h"
#include "reference/io/pcap_link.h"

namespace mr::io::fabric {

struct FabricNamespacesOptions {
  bool kernel_addresses = false;
  unsigned mtu = 9000;  // room for 4 KiB RoCE frames
};

// How the fabric opens its side of a port (here, and `metaroce fabric` on interfaces a caller
// wired): every frame, ring slots of the interface's MTU, and a ring deep enough for a host's
// window while the fabric's thread serves the other ports.
inline PcapLinkOptions fabric_port_link_options() {
  return {.filter = "", .buffer_bytes = 32 << 20, .snap_length = 0};
}

class FabricNamespaces {
 public:
  // The interface of endpoint e's port on plane p: in its namespace, and in the fabric's.
  static std::string endpoint_interface(uint32_t plane);
  static std::string fabric_interface(uint32_t plane, uint32_t endpoint);

  // Errors name the step and the namespace ("endpoint 3: ip link add ...: ...").
  static Expected<std::unique_ptr<FabricNamespaces>, std::string> create(
      const FabricConfig& config, const FabricNamespacesOptions& options = {});

  NetworkNamespace& fabric() { return fabric_; }
  NetworkNamespace& endpoint(uint32_t e) { return endpoints_.at(e); }
  uint32_t planes() const { return planes_; }
  uint32_t endpoints() const { return static_cast<uint32_t>(endpoints_.size()); }

  // The fabric's side of every port, [plane][endpoint], opened in the fabric's namespace
  // (every frame: the fabric forwards whatever the hosts send).
  Expected<std::vector<std::vector<PcapLink>>, std::string> open_fabric_links() const;
  // Endpoint e's port on `plane`, opened in e's namespace, as a host's NIC would use it (the
  // RoCE filter of PcapLinkOptions, ring slots of the MTU so a window's burst fits).
  Expected<PcapLink, std::string> open_endpoint_link(uint32_t endpoint, uint32_t plane) const;

 private:
  FabricNamespaces(NetworkNamespace fabric, uint32_t planes)
      : fabric_(std::move(fabric)), planes_(planes) {}

  NetworkNamespace fabric_;
  std::vector<NetworkNamespace> endpoints_;
  uint32_t planes_ = 0;
};

}  // namespace mr::io::fabric
