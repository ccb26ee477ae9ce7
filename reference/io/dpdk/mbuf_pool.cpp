#include "reference/io/dpdk/mbuf_pool.h"

#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include <bit>

namespace mr::io::dpdk {

Expected<MbufPool, std::string> MbufPool::create(const std::string& name, unsigned count,
                                                 uint16_t data_bytes, int socket) {
  if (data_bytes > UINT16_MAX - RTE_PKTMBUF_HEADROOM) {
    return Unexpected(name + ": " + std::to_string(data_bytes) +
                      " data bytes per mbuf leave no room for DPDK's headroom");
  }
  const auto room = static_cast<uint16_t>(data_bytes + RTE_PKTMBUF_HEADROOM);
  // The cache may hold at most 1/1.5 of the pool (rte_mempool_create's rule).
  const unsigned cache = std::min(kMbufCache, count * 2 / 3);
  rte_mempool* pool = rte_pktmbuf_pool_create(name.c_str(), count, cache, 0, room, socket);
  if (pool == nullptr) {
    return Unexpected(name + ": rte_pktmbuf_pool_create(" + std::to_string(count) + " mbufs of " +
                      std::to_string(data_bytes) + " bytes): " + rte_strerror(rte_errno));
  }
  return MbufPool(pool, data_bytes);
}

unsigned mbufs_for_rings(unsigned queues, unsigned rx_descriptors, unsigned tx_descriptors,
                         unsigned burst) {
  const unsigned needed =
      queues * (rx_descriptors + tx_descriptors + 2 * burst) + (rte_lcore_count() + 1) * kMbufCache;
  return std::bit_ceil(needed + 1) - 1;
}

}  // namespace mr::io::dpdk
