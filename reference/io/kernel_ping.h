// File: kernel_ping.h
//
// A ping sent by the Linux kernel of a test namespace, through an unprivileged ICMP
// "ping socket" (SOCK_DGRAM, IPPROTO_ICMP/ICMPV6). The kernel resolves the peer with its
// own ARP/ND, builds the echo request, and delivers the reply to the socket only after
// checking its checksum: an independent oracle for a Node's ARP, ND and ICMP, without
// needing the ping binary.
//
// Usage:
//   auto rtt = kernel_ping(veth->a(), "198.18.0.2", VethPair::kInterfaceA, 1, 2'000'000'000);
#pragma once

#include <cstdint>
#include <string>

#include "reference/error/expected.h"
#include "reference/io/network_namespace.h"

namespace mr::io {

// Sends one echo request with sequence `seq` from inside `ns` to `address` (IPv4 or IPv6;
// `interface` scopes a link-local IPv6 address) and waits at most timeout_ns for its
// reply. Returns the round-trip time in ns.
Expected<uint64_t, std::string> kernel_ping(const NetworkNamespace& ns, const std::string& address,
                                            const std::string& interface, uint16_t seq,
                                            uint64_t timeout_ns);

}  // namespace mr::io
