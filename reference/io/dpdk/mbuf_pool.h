// File: mbuf_pool.h
//
// A pool of packet buffers (mbufs) in DPDK memory, freed when the MbufPool goes. Sized by
// the caller for the rings it feeds: every RX descriptor holds an mbuf while it waits for a
// frame, every TX descriptor one until the device has sent it, and each lcore keeps a cache.
//
// Usage:
//   auto pool = MbufPool::create("mr-port0", 4095, 2048, rte_eth_dev_socket_id(port));
//   rte_pktmbuf_alloc_bulk(pool->get(), mbufs, 32);
#pragma once

#include <rte_mempool.h>

#include <cstdint>
#include <memory>
#include <string>

#include "reference/error/expected.h"

namespace mr::io::dpdk {

class MbufPool {
 public:
  // `name` must be unique in the process (DPDK names pools globally); `data_bytes` is the
  // room for frame bytes in each mbuf, beyond DPDK's headroom.
  static Expected<MbufPool, std::string> create(const std::string& name, unsigned count,
                                                uint16_t data_bytes, int socket);

  rte_mempool* get() const { return pool_.get(); }
  uint16_t data_bytes() const { return data_bytes_; }
  unsigned available() const { return rte_mempool_avail_count(pool_.get()); }
  unsigned count() const { return pool_->size; }

 private:
  struct Free {
    void operator()(rte_mempool* pool) const { rte_mempool_free(pool); }
  };
  MbufPool(rte_mempool* pool, uint16_t data_bytes) : pool_(pool), data_bytes_(data_bytes) {}

  std::unique_ptr<rte_mempool, Free> pool_;
  uint16_t data_bytes_;
};

// Mbufs enough for `queues` RX and TX rings of the given sizes, bursts in flight and the
// lcore caches; rounded to 2^k - 1, the size DPDK's ring-based pools use best.
unsigned mbufs_for_rings(unsigned queues, unsigned rx_descriptors, unsigned tx_descriptors,
                         unsigned burst);

// The per-lcore cache mbufs_for_rings() allows for.
inline constexpr unsigned kMbufCache = 256;

}  // namespace mr::io::dpdk
