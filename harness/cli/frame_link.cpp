// File: frame_link.cpp
#include "harness/cli/frame_link.h"

#include <sstream>
#include <utility>
#include <vector>

#include "reference/io/dpdk/af_packet_device.h"
#include "reference/io/dpdk/dpdk_link.h"
#include "reference/io/pcap_link.h"

namespace mr::cli {
namespace {

// Jumbo frames: the suite sends up to 4,096-byte payloads and the DUT may answer with more.
constexpr unsigned kMaxFrameBytes = 9014;

Expected<std::unique_ptr<io::Link>, std::string> open_dpdk(const FrameLinkChoice& c) {
  if (c.devargs.empty() && c.iface.empty())
    return Unexpected(
        std::string("--io dpdk: give --iface (a net_af_packet device on it) or "
                    "--dpdk-devargs (a NIC's device)"));
  std::vector<std::string> arguments = io::dpdk::DpdkEal::default_arguments();
  std::istringstream extra(c.eal);
  for (std::string word; extra >> word;) arguments.push_back(word);
  auto eal = io::dpdk::DpdkEal::start(arguments);
  if (!eal) return Unexpected("--io dpdk: " + eal.error());
  io::dpdk::DpdkLinkOptions options;
  std::string devargs = c.devargs;
  if (devargs.empty()) {
    const auto device = io::dpdk::af_packet_device(0, c.iface, {.max_frame_bytes = kMaxFrameBytes});
    devargs = device.devargs;
    options.mbuf_data_bytes = device.mbuf_data_bytes;
  }
  auto link = io::dpdk::DpdkLink::attach(*eal, devargs, options);
  if (!link) return Unexpected("--io dpdk: " + link.error());
  return std::unique_ptr<io::Link>(std::make_unique<io::dpdk::DpdkLink>(std::move(*link)));
}

}  // namespace

Expected<std::unique_ptr<io::Link>, std::string> open_frame_link(const FrameLinkChoice& c) {
  if (c.io == "dpdk") return open_dpdk(c);
  if (c.io != "pcap") return Unexpected("--io " + c.io + ": the backends are pcap and dpdk");
  if (!c.devargs.empty() || !c.eal.empty())
    return Unexpected(std::string("--eal and --dpdk-devargs are for --io dpdk"));
  auto pcap = io::PcapLink::open(c.iface);
  if (!pcap) return Unexpected(pcap.error());
  return std::unique_ptr<io::Link>(std::make_unique<io::PcapLink>(std::move(*pcap)));
}

}  // namespace mr::cli
