// File: pcap_link.h
//
// A Link on a live interface through libpcap (AF_PACKET with a TPACKET_V2 memory-mapped
// ring underneath: libpcap leaves TPACKET_V3 out in immediate mode, whose blocks it cannot
// hand over one frame at a time; strace shows PACKET_VERSION 1): the backend for veth and
// tap interfaces inside the test's network namespaces, and for a real NIC facing a device
// under test.
//
// Set-up: snaplen 65535 (an option), immediate mode (no batching delay), nanosecond timestamps,
// non-blocking, a BPF filter so that only traffic a Node handles crosses into user space,
// and direction "in" so that frames we inject do not come back to us. Receive waits with
// poll() on pcap's selectable descriptor, bounded by the timeout. Received frames are
// stamped with the kernel's capture time (CLOCK_REALTIME, ns since the Unix epoch).
//
// Capture loss must not pass unnoticed: stats() returns libpcap's counters, and the
// harness turns a non-zero drop count into an inconclusive verdict.
//
// Usage:
//   auto link = PcapLink::open("mrt0");
//   if (!link) fail(link.error());            // "mrt0: You don't have permission..."
//   link->send_burst(frames);
#pragma once

#include <pcap/pcap.h>

#include <cstdint>
#include <memory>
#include <string>

#include "reference/error/expected.h"
#include "reference/io/link.h"

namespace mr::io {

struct PcapLinkOptions {
  // ICMP is in so that the Node can answer ping; the vlan clause lets tagged RoCE through.
  std::string filter = "udp port 4791 or arp or icmp or icmp6 or (vlan and udp port 4791)";
  bool promiscuous = true;  // a Node may use a MAC other than the interface's
  int buffer_bytes = 8 << 20;
  // Bytes kept of each frame. In immediate mode libpcap uses TPACKET_V2, whose ring slots
  // are sized for the snap length: 65535 leaves 8 MiB room for 64 frames; the interface's
  // MTU + 18 (Ethernet header and a VLAN tag) keeps every frame whole and fits far more.
  // 0: that, with the MTU read from the interface when it opens.
  int snap_length = 65535;
};

// An Ethernet header and one 802.1Q tag: what a frame carries beyond the interface's MTU.
inline constexpr int kEthernetAndTagBytes = 18;

struct PcapLinkStats {
  uint64_t received = 0;           // ps_recv: frames that passed the filter
  uint64_t dropped = 0;            // ps_drop: lost because the ring was full
  uint64_t interface_dropped = 0;  // ps_ifdrop: dropped by the interface or driver
  uint64_t send_failures = 0;      // frames pcap_inject did not take
};

class PcapLink final : public Link {
 public:
  static Expected<PcapLink, std::string> open(const std::string& interface,
                                              const PcapLinkOptions& options = {});

  size_t send_burst(std::span<const Frame> frames) override;
  size_t receive_burst(std::span<Frame> out, uint64_t timeout_ns) override;
  std::string name() const override { return "pcap:" + interface_; }

  Expected<PcapLinkStats, std::string> stats() const;
  // Polls readable when frames may be waiting: for a caller that waits on several links at
  // once (RealTimeFabric). A readable descriptor can still yield no frame (filtered out).
  int selectable_fd() const { return fd_; }
  // The reason the last refused send gave (empty if none was refused).
  const std::string& last_send_error() const { return last_send_error_; }

 private:
  struct PcapCloser {
    void operator()(pcap_t* p) const { pcap_close(p); }
  };
  PcapLink(std::string interface, pcap_t* handle)
      : interface_(std::move(interface)), handle_(handle) {}
  size_t dispatch(std::span<Frame> out);

  std::string interface_;
  std::unique_ptr<pcap_t, PcapCloser> handle_;
  int fd_ = -1;
  uint64_t send_failures_ = 0;
  std::string last_send_error_;
};

}  // namespace mr::io
