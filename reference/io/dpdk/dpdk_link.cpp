#include "reference/io/dpdk/dpdk_link.h"

#include <rte_ethdev.h>
#include <rte_pause.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <ctime>

namespace mr::io::dpdk {
namespace {

uint64_t clock_ns(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ULL + static_cast<uint64_t>(ts.tv_nsec);
}

void sleep_ns(uint64_t ns) {
  const timespec wait{static_cast<time_t>(ns / 1'000'000'000ULL),
                      static_cast<long>(ns % 1'000'000'000ULL)};
  nanosleep(&wait, nullptr);
}

// Copies an mbuf's frame (one segment or a chain) into a Frame, reusing its capacity.
void copy_frame(const rte_mbuf* m, Frame& frame) {
  const uint32_t length = rte_pktmbuf_pkt_len(m);
  if (m->nb_segs == 1) {
    const auto* data = rte_pktmbuf_mtod(m, const uint8_t*);
    frame.bytes.assign(data, data + length);
    return;
  }
  frame.bytes.resize(length);
  const void* data = rte_pktmbuf_read(m, 0, length, frame.bytes.data());
  if (data != frame.bytes.data()) std::memcpy(frame.bytes.data(), data, length);
}

std::string pool_name(uint16_t port) {
  static std::atomic<unsigned> counter{0};
  return "mr" + std::to_string(port) + "-" + std::to_string(counter++);
}

}  // namespace

DpdkLink::DpdkLink(std::shared_ptr<DpdkEal> eal, MbufPool pool, EthPort port,
                   const DpdkLinkOptions& options)
    : eal_(std::move(eal)),
      pool_(std::move(pool)),
      port_(std::move(port)),
      options_(options),
      tx_mbufs_(options.burst),
      rx_mbufs_(options.burst) {}

Expected<DpdkLink, std::string> DpdkLink::attach(std::shared_ptr<DpdkEal> eal,
                                                 const std::string& devargs,
                                                 const DpdkLinkOptions& options) {
  if (!eal) return Unexpected(devargs + ": DPDK's EAL is not started");
  auto port = EthPort::attach(devargs);
  if (!port) return Unexpected(port.error());
  return start(std::move(eal), std::move(*port), options);
}

Expected<DpdkLink, std::string> DpdkLink::open(std::shared_ptr<DpdkEal> eal,
                                               const std::string& port_name,
                                               const DpdkLinkOptions& options) {
  if (!eal) return Unexpected(port_name + ": DPDK's EAL is not started");
  auto port = EthPort::find(port_name);
  if (!port) return Unexpected(port.error());
  return start(std::move(eal), std::move(*port), options);
}

Expected<DpdkLink, std::string> DpdkLink::start(std::shared_ptr<DpdkEal> eal, EthPort port,
                                                const DpdkLinkOptions& options) {
  if (options.burst == 0 || options.queues == 0) {
    return Unexpected(port.name() + ": burst and queue count must be at least 1");
  }
  auto pool = MbufPool::create(pool_name(port.id()),
                               mbufs_for_rings(options.queues, options.rx_descriptors,
                                               options.tx_descriptors, options.burst),
                               options.mbuf_data_bytes, port.socket());
  if (!pool) return Unexpected(port.name() + ": " + pool.error());
  const EthPortConfig config{.queues = options.queues,
                             .rx_descriptors = options.rx_descriptors,
                             .tx_descriptors = options.tx_descriptors,
                             .promiscuous = options.promiscuous};
  // The link owns pool and port from here, so that a failed start releases both in order.
  DpdkLink link(std::move(eal), std::move(*pool), std::move(port), options);
  if (auto started = link.port_.start(config, link.pool_.get()); !started) {
    return Unexpected(started.error());
  }
  return link;
}

size_t DpdkLink::send_chunk(std::span<const Frame> frames) {
  const uint16_t room = pool_.data_bytes();
  size_t count = 0;
  while (count < frames.size() && frames[count].bytes.size() <= room) ++count;
  if (count == 0) {
    ++counters_.tx_too_long;
    return 0;
  }
  if (rte_pktmbuf_alloc_bulk(pool_.get(), tx_mbufs_.data(), static_cast<unsigned>(count)) != 0) {
    ++counters_.tx_no_mbuf;
    return 0;
  }
  for (size_t i = 0; i < count; ++i) {
    // A fresh mbuf is one empty segment: the frame fits, as checked above.
    rte_mbuf* m = tx_mbufs_[i];
    const auto length = static_cast<uint16_t>(frames[i].bytes.size());
    std::memcpy(rte_pktmbuf_mtod(m, uint8_t*), frames[i].bytes.data(), length);
    m->data_len = length;
    m->pkt_len = length;
  }
  const uint16_t accepted =
      rte_eth_tx_burst(port_.id(), 0, tx_mbufs_.data(), static_cast<uint16_t>(count));
  if (accepted < count) {
    rte_pktmbuf_free_bulk(tx_mbufs_.data() + accepted, static_cast<unsigned>(count - accepted));
    counters_.tx_not_accepted += count - accepted;
  }
  for (size_t i = 0; i < accepted; ++i) counters_.bytes_sent += frames[i].bytes.size();
  counters_.frames_sent += accepted;
  return accepted;
}

size_t DpdkLink::send_burst(std::span<const Frame> frames) {
  size_t sent = 0;
  while (sent < frames.size()) {
    const size_t chunk = std::min<size_t>(options_.burst, frames.size() - sent);
    const size_t accepted = send_chunk(frames.subspan(sent, chunk));
    sent += accepted;
    if (accepted < chunk) break;  // ring full, pool empty or a frame too long: caller decides
  }
  return sent;
}

size_t DpdkLink::poll_once(std::span<Frame> out) {
  size_t moved = 0;
  for (uint16_t tried = 0; tried < options_.queues && moved < out.size(); ++tried) {
    const uint16_t queue = next_rx_queue_;
    next_rx_queue_ = static_cast<uint16_t>((next_rx_queue_ + 1) % options_.queues);
    while (moved < out.size()) {
      const auto want = static_cast<uint16_t>(std::min<size_t>(options_.burst, out.size() - moved));
      const uint16_t got = rte_eth_rx_burst(port_.id(), queue, rx_mbufs_.data(), want);
      if (got == 0) break;
      const uint64_t now = clock_ns(CLOCK_REALTIME);
      for (uint16_t i = 0; i < got; ++i) {
        Frame& frame = out[moved + i];
        copy_frame(rx_mbufs_[i], frame);
        frame.timestamp_ns = now;
        counters_.bytes_received += frame.bytes.size();
      }
      rte_pktmbuf_free_bulk(rx_mbufs_.data(), got);
      moved += got;
      if (got < want) break;  // this queue is empty for now
    }
  }
  counters_.frames_received += moved;
  return moved;
}

size_t DpdkLink::receive_burst(std::span<Frame> out, uint64_t timeout_ns) {
  if (out.empty()) return 0;
  size_t n = poll_once(out);
  if (n > 0 || timeout_ns == 0) return n;
  const uint64_t start = clock_ns(CLOCK_MONOTONIC);
  const uint64_t deadline = start + timeout_ns;
  for (uint64_t now = start; now < deadline; now = clock_ns(CLOCK_MONOTONIC)) {
    // Spinning catches the next frame soonest; after a while, pausing leaves the core to
    // others (this machine has two).
    if (now - start < options_.busy_poll_ns) {
      rte_pause();
    } else {
      sleep_ns(std::min(options_.pause_ns, deadline - now));
    }
    n = poll_once(out);
    if (n > 0) return n;
  }
  return 0;
}

Expected<DpdkLinkStats, std::string> DpdkLink::stats() const {
  rte_eth_stats device{};
  if (const int rc = rte_eth_stats_get(port_.id(), &device); rc != 0) {
    return Unexpected(port_.name() + ": rte_eth_stats_get: " + rte_strerror(-rc));
  }
  DpdkLinkStats s = counters_;
  s.port_rx_packets = device.ipackets;
  s.port_rx_bytes = device.ibytes;
  s.port_tx_packets = device.opackets;
  s.port_tx_bytes = device.obytes;
  s.port_rx_missed = device.imissed;
  s.port_rx_errors = device.ierrors;
  s.port_tx_errors = device.oerrors;
  s.port_rx_nombuf = device.rx_nombuf;
  return s;
}

}  // namespace mr::io::dpdk
