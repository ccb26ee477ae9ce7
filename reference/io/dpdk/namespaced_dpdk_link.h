// File: namespaced_dpdk_link.h
//
// Attaches a DpdkLink to a device over an interface that lives in another network
// namespace, from a process that stays in its own: the device is probed, configured and
// started on a thread that has joined the namespace (net_af_packet opens its sockets and
// sets promiscuous mode there; sockets keep the namespace they were made in), and the link
// works from any thread afterwards. The EAL must have been started before, on the thread
// that is to be DPDK's main lcore.
//
// Usage:
//   auto veth = VethPair::create({.kernel_ipv6 = false});
//   const auto dev = af_packet_device(0, VethPair::kInterfaceA);
//   auto link = attach_dpdk_link_in(veth->a(), eal, dev.devargs,
//                                   {.mbuf_data_bytes = dev.mbuf_data_bytes});
#pragma once

#include <memory>
#include <string>

#include "reference/error/expected.h"
#include "reference/io/dpdk/dpdk_link.h"
#include "reference/io/network_namespace.h"

namespace mr::io::dpdk {

Expected<DpdkLink, std::string> attach_dpdk_link_in(const NetworkNamespace& ns,
                                                    std::shared_ptr<DpdkEal> eal,
                                                    const std::string& devargs,
                                                    const DpdkLinkOptions& options = {});

}  // namespace mr::io::dpdk
