#include "reference/transport/receive_scatter.h"

#include <algorithm>
#include <cstring>

namespace mr::transport {

uint64_t receive_capacity(const RecvWr& rwqe) {
  uint64_t n = 0;
  for (const Sge& s : rwqe.sg_list) n += s.length;
  return n;
}

bool scatter(const QueuePair& qp, std::span<const Sge> sg_list, uint64_t offset,
             std::span<const uint8_t> data, QpContext& ctx) {
  for (const Sge& sge : sg_list) {
    if (data.empty()) return true;
    if (offset >= sge.length) {
      offset -= sge.length;
      continue;
    }
    const auto n = static_cast<uint32_t>(std::min<uint64_t>(sge.length - offset, data.size()));
    auto dst =
        ctx.memory.resolve_local(sge.lkey, qp.init.pd, sge.addr + offset, n, memory::kLocalWrite);
    if (!dst) return false;
    std::memcpy(dst->data(), data.data(), n);
    data = data.subspan(n);
    offset = 0;
  }
  return data.empty();
}

}  // namespace mr::transport
