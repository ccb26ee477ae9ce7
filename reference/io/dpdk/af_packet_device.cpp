#include "reference/io/dpdk/af_packet_device.h"

#include <unistd.h>

#include <numeric>

namespace mr::io::dpdk {
namespace {

// Where TPACKET_V2 puts a received frame in its slot: the header (32 bytes) and a
// sockaddr_ll (20), with room for a 16-byte MAC header, aligned to 16, minus the 14-byte
// Ethernet header: 66. 80 leaves a margin (a VLAN tag the PMD puts back, kernel changes).
constexpr unsigned kReceiveOffset = 80;
// What the PMD takes off a slot for sending (TPACKET2_HDRLEN - sizeof(sockaddr_ll)).
constexpr unsigned kSendOffset = 32;

unsigned round_up(unsigned value, unsigned multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

}  // namespace

AfPacketDevice af_packet_device(unsigned index, const std::string& interface,
                                const AfPacketOptions& options) {
  const auto page = static_cast<unsigned>(::sysconf(_SC_PAGESIZE));
  // Slots of whole KiB (2048 for standard frames, DPDK's default), so that a few make a
  // block of whole pages.
  const unsigned slot = round_up(options.max_frame_bytes + kReceiveOffset, 1024);
  const unsigned block = std::lcm(slot, page);
  const unsigned slots_per_block = block / slot;
  const unsigned frames = round_up(options.frames, slots_per_block);
  std::string devargs = "net_af_packet" + std::to_string(index) + ",iface=" + interface +
                        ",framesz=" + std::to_string(slot) + ",blocksz=" + std::to_string(block) +
                        ",framecnt=" + std::to_string(frames) +
                        ",qpairs=" + std::to_string(options.queues) +
                        ",qdisc_bypass=" + (options.qdisc_bypass ? "1" : "0");
  return {std::move(devargs), static_cast<uint16_t>(slot - kSendOffset)};
}

}  // namespace mr::io::dpdk
