// File: link.h
//
// The packet I/O interface every backend implements: burst send, burst receive with a
// bounded wait, a name. Modelled on packetdrill's netdev ops and DPDK's rx/tx burst: the
// hot path moves many frames per call and reports no per-frame errors (a frame not
// accepted is simply not counted); backends expose their own counters and control-path
// errors.
//
// Backends: MemoryLinkPair (in-process, virtual clock, impairments), PcapLink (a live
// interface through libpcap/AF_PACKET), PcapFileLink (replay a capture, record a pcapng).
//
// Usage:
//   std::vector<Frame> in(32);
//   size_t n = link.receive_burst(in, 1'000'000);   // waits at most 1 ms for the first
//   for (size_t i = 0; i < n; ++i) handle(in[i].bytes, in[i].timestamp_ns);
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace mr::io {

struct Frame {
  std::vector<uint8_t> bytes;  // a complete Ethernet frame, without the FCS
  uint64_t timestamp_ns = 0;   // when it was sent or received, on the backend's clock
};

class Link {
 public:
  virtual ~Link() = default;
  // Returns how many frames, from the front, were accepted for transmission.
  virtual size_t send_burst(std::span<const Frame> frames) = 0;
  // Waits at most timeout_ns (0 = poll) for the first frame, then moves whatever else is
  // ready into out[1..]. Returns how many frames it moved into out.
  virtual size_t receive_burst(std::span<Frame> out, uint64_t timeout_ns) = 0;
  virtual std::string name() const = 0;
};

}  // namespace mr::io
