// File: namespaced_pcap_link.h
//
// Opens a PcapLink on an interface that lives in another network namespace, from a
// process that stays in its own: the pcap socket is created on a thread that has joined
// the namespace, and a socket keeps the namespace it was made in, so the link works from
// any thread afterwards (network_namespace_test and pcap_link_test check this).
//
// Usage:
//   auto veth = VethPair::create();
//   auto link = open_pcap_link_in(veth->a(), VethPair::kInterfaceA);
#pragma once

#include <string>

#include "reference/error/expected.h"
#include "reference/io/network_namespace.h"
#include "reference/io/pcap_link.h"

namespace mr::io {

Expected<PcapLink, std::string> open_pcap_link_in(const NetworkNamespace& ns,
                                                  const std::string& interface,
                                                  const PcapLinkOptions& options = {});

}  // namespace mr::io
