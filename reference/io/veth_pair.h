// File: veth_pair.h
//
// The two-host test topology: two fresh network namespaces joined by a veth pair, links
// up, deleted with everything in them when the VethPair goes (also when a test fails).
// The veth is created directly inside the first namespace with its peer in the second,
// so it never exists in the root namespace.
//
// Kernel addresses are optional: leave them out when a Node with its own MAC and IP uses
// the interface (the kernel then stays silent at L3), set one to let the kernel act as an
// independent peer (its ping checks our ARP, ND and checksums). Only 198.18.0.0/15.
//
// Usage:
//   auto veth = VethPair::create({.kernel_ipv4_a = "198.18.0.1/24"});
//   veth->a().exec({"ping", "-c", "1", "-W", "1", "198.18.0.2"});
#pragma once

#include <optional>
#include <string>

#include "reference/error/expected.h"
#include "reference/io/network_namespace.h"

namespace mr::io {

struct VethPairOptions {
  std::optional<std::string> kernel_ipv4_a = {};  // CIDR, e.g. "198.18.0.1/24"
  std::optional<std::string> kernel_ipv4_b = {};
  unsigned mtu = 1500;
  // Off: the kernel's own IPv6 (link-local, DAD, router solicitations) on the veth.
  bool kernel_ipv6 = true;
};

class VethPair {
 public:
  static constexpr const char* kInterfaceA = "mrt0";
  static constexpr const char* kInterfaceB = "mrt1";

  static Expected<VethPair, std::string> create(const VethPairOptions& options = {});

  NetworkNamespace& a() { return a_; }
  NetworkNamespace& b() { return b_; }
  const std::string interface_a() const { return kInterfaceA; }
  const std::string interface_b() const { return kInterfaceB; }

 private:
  VethPair(NetworkNamespace a, NetworkNamespace b) : a_(std::move(a)), b_(std::move(b)) {}
  NetworkNamespace a_;
  NetworkNamespace b_;
};

// True for "a.b.c.d/len" inside 198.18.0.0/15 with 15 <= len <= 32.
bool is_benchmarking_cidr(const std::string& cidr);

}  // namespace mr::io
