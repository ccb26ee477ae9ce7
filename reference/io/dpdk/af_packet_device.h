// File: af_packet_device.h
//
// The devargs of a net_af_packet virtual device (DPDK over a kernel interface through an
// AF_PACKET socket with memory-mapped TPACKET_V2 rings), sized so that no frame up to a
// given length is cut or dropped, and the mbuf size that goes with them. Three limits meet
// here, all silent when crossed:
// - receive: the kernel writes a frame 66 bytes into its ring slot (the TPACKET_V2 header,
//   aligned), so a slot of `framesz` bytes keeps framesz - 66 bytes of a frame and cuts the
//   rest;
// - send: the PMD drops a frame longer than framesz - 32 and counts it as sent;
// - the PMD refuses RX queue set-up when an mbuf holds less than framesz - 32 bytes.
// And the kernel's: a slot size a multiple of 16, a block a whole number of pages holding a
// whole number of slots, as many slots as fill whole blocks. The interface's MTU must admit
// the frames too (VethPairOptions::mtu).
//
// Usage:
//   const AfPacketDevice dev = af_packet_device(0, "mrt0", {.max_frame_bytes = 9014});
//   DpdkLink::attach(eal, dev.devargs, {.mbuf_data_bytes = dev.mbuf_data_bytes});
#pragma once

#include <cstdint>
#include <string>

namespace mr::io::dpdk {

struct AfPacketOptions {
  unsigned max_frame_bytes = 1518;  // the longest frame, Ethernet header included, no FCS
  unsigned frames = 1024;           // slots in each of the RX and TX rings
  unsigned queues = 1;              // qpairs: sockets joined in a fanout group
  bool qdisc_bypass = true;         // the PMD's default: straight to the driver
};

struct AfPacketDevice {
  std::string devargs;       // "net_af_packet<index>,iface=...,framesz=...,..."
  uint16_t mbuf_data_bytes;  // DpdkLinkOptions::mbuf_data_bytes for it
};

AfPacketDevice af_packet_device(unsigned index, const std::string& interface,
                                const AfPacketOptions& options = {});

}  // namespace mr::io::dpdk
