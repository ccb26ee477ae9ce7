// File: frame_link.h
//
// The Link a command sends and receives RoCE frames on, by I/O backend (`--io`): libpcap on
// an interface (the default), or DPDK (`--io dpdk`): a net_af_packet device on the same
// interface unless `--dpdk-devargs` names another device (a NIC's PMD), with `--eal` added
// to the EAL's arguments (reference/io/dpdk). One choice for every command that opens a
// data path, so `agent`, and later `run`, `replay --inject` and `interop`, read the same
// options.
//
//   FrameLinkChoice choice{.io = "dpdk", .iface = "veth0"};
//   auto link = open_frame_link(choice);   // std::unique_ptr<io::Link>, or why not
#pragma once

#include <memory>
#include <string>

#include "reference/error/expected.h"
#include "reference/io/link.h"

namespace mr::cli {

struct FrameLinkChoice {
  std::string io = "pcap";  // pcap | dpdk
  std::string iface;        // the interface facing the peer
  std::string eal;          // dpdk: extra EAL arguments, space-separated
  std::string devargs;      // dpdk: the device; "": net_af_packet on iface
};

Expected<std::unique_ptr<io::Link>, std::string> open_frame_link(const FrameLinkChoice& choice);

}  // namespace mr::cli
