// File: dpdk_link.h
//
// A Link on one DPDK ethdev port: rte_eth_tx_burst and rte_eth_rx_burst over an mbuf pool
// of its own. The same code drives a NIC's poll-mode driver and, here and in CI, a
// net_af_packet virtual device on a veth inside a test namespace (af_packet_device.h).
//
// Send copies each frame into an mbuf (allocated in bulk, one burst at a time), hands the
// burst to the TX ring and gives back to the pool what the ring did not take; it returns
// how many frames, from the front, were accepted. A frame longer than an mbuf holds is not
// sent and ends the burst (counted in stats().tx_too_long). Receive polls every RX queue,
// spinning briefly and then pausing between empty polls, until the first frame or the
// timeout; frames are copied into the caller's Frames (their vectors' capacity is reused:
// no allocation per frame once they are grown), stamped with CLOCK_REALTIME at the poll
// that returned them (the clock PcapLink's kernel stamps and RecordingLink's sent frames
// use, so a capture reads the same on either backend; a NIC's own stamps are device ticks
// and are not used yet), and the mbufs go back to the pool in bulk. Nothing on either path
// allocates from the heap or logs.
//
// Queues: send uses TX queue 0, so that frames leave in the order given; receive polls all
// RX queues in turn. One thread may send while another receives; stats() reads counters
// those threads write without locks, so call it from one of them or while they rest.
//
// Usage:
//   auto eal = DpdkEal::start();
//   const auto dev = af_packet_device(0, "mrt0");
//   auto link = DpdkLink::attach(*eal, dev.devargs, {.mbuf_data_bytes = dev.mbuf_data_bytes});
//   link->send_burst(frames);
//   size_t n = link->receive_burst(in, 1'000'000);
#pragma once

#include <rte_mbuf.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "reference/error/expected.h"
#include "reference/io/dpdk/dpdk_eal.h"
#include "reference/io/dpdk/eth_port.h"
#include "reference/io/dpdk/mbuf_pool.h"
#include "reference/io/link.h"

namespace mr::io::dpdk {

struct DpdkLinkOptions {
  uint16_t queues = 1;
  uint16_t rx_descriptors = 1024;
  uint16_t tx_descriptors = 1024;
  uint16_t burst = 32;                                   // mbufs per rx/tx burst call
  uint16_t mbuf_data_bytes = RTE_MBUF_DEFAULT_DATAROOM;  // the longest frame it can carry
  bool promiscuous = true;
  uint64_t busy_poll_ns = 20'000;  // an empty RX spins this long before it pauses
  uint64_t pause_ns = 20'000;      // then sleeps this long between polls
};

struct DpdkLinkStats {
  // What crossed this Link.
  uint64_t frames_sent = 0;
  uint64_t bytes_sent = 0;
  uint64_t frames_received = 0;
  uint64_t bytes_received = 0;
  uint64_t tx_not_accepted = 0;  // the TX ring was full: given back, not sent
  uint64_t tx_no_mbuf = 0;       // bursts cut short by an empty pool
  uint64_t tx_too_long = 0;      // frames longer than an mbuf holds
  // The device's counters (rte_eth_stats).
  uint64_t port_rx_packets = 0;
  uint64_t port_rx_bytes = 0;
  uint64_t port_tx_packets = 0;
  uint64_t port_tx_bytes = 0;
  uint64_t port_rx_missed = 0;  // imissed: the device had no room
  uint64_t port_rx_errors = 0;
  uint64_t port_tx_errors = 0;
  uint64_t port_rx_nombuf = 0;  // RX found the pool empty
};

class DpdkLink final : public Link {
 public:
  // Hot-plugs the device of `devargs` and removes it again with the link.
  static Expected<DpdkLink, std::string> attach(std::shared_ptr<DpdkEal> eal,
                                                const std::string& devargs,
                                                const DpdkLinkOptions& options = {});
  // A port the EAL probed already, by name ("net_af_packet0", "0000:3b:00.0").
  static Expected<DpdkLink, std::string> open(std::shared_ptr<DpdkEal> eal,
                                              const std::string& port_name,
                                              const DpdkLinkOptions& options = {});

  size_t send_burst(std::span<const Frame> frames) override;
  size_t receive_burst(std::span<Frame> out, uint64_t timeout_ns) override;
  std::string name() const override { return "dpdk:" + port_.name(); }

  Expected<DpdkLinkStats, std::string> stats() const;
  uint16_t port_id() const { return port_.id(); }
  const MbufPool& pool() const { return pool_; }

 private:
  DpdkLink(std::shared_ptr<DpdkEal> eal, MbufPool pool, EthPort port,
           const DpdkLinkOptions& options);
  static Expected<DpdkLink, std::string> start(std::shared_ptr<DpdkEal> eal, EthPort port,
                                               const DpdkLinkOptions& options);
  size_t poll_once(std::span<Frame> out);
  size_t send_chunk(std::span<const Frame> frames);

  // Destroyed in reverse: the port before the pool its queues use, both before the EAL.
  std::shared_ptr<DpdkEal> eal_;
  MbufPool pool_;
  EthPort port_;
  DpdkLinkOptions options_;
  std::vector<rte_mbuf*> tx_mbufs_;  // one burst each, allocated once
  std::vector<rte_mbuf*> rx_mbufs_;
  uint16_t next_rx_queue_ = 0;
  DpdkLinkStats counters_;  // the Link's own counts; stats() adds the device's
};

}  // namespace mr::io::dpdk
