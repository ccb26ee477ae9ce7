#include "reference/transport/packet_gather.h"

#include <algorithm>

namespace mr::transport {
namespace {

// What a packet carries where its region cannot be read: at most a path MTU at a time.
constexpr std::array<uint8_t, 4096> kZeros{};

}  // namespace

PacketGather PacketGather::of(const QueuePair& qp, const SendWqe& w, uint32_t offset, uint32_t n,
                              const memory::MemoryTable& mem) {
  PacketGather g;
  uint32_t skip = offset;
  for (const Sge& sge : w.wr.sg_list) {
    if (g.size_ == n) break;
    if (skip >= sge.length) {
      skip -= sge.length;
      continue;
    }
    const uint32_t take = std::min<uint32_t>(sge.length - skip, n - g.size_);
    auto span = mem.resolve_local(sge.lkey, qp.init.pd, sge.addr + skip, take, 0);
    if (!span) {  // validated at post time; a deregistered MR sends what it can
      g.readable_ = false;
      break;
    }
    g.add(*span);
    skip = 0;
  }
  while (g.size_ < n) g.add(std::span(kZeros).first(std::min<size_t>(kZeros.size(), n - g.size_)));
  return g;
}

void PacketGather::add(std::span<const uint8_t> piece) {
  if (piece.empty()) return;
  size_ += static_cast<uint32_t>(piece.size());
  if (spilled_.empty() && count_ < kInline) {
    inline_[count_++] = piece;
    return;
  }
  if (spilled_.empty()) spilled_.assign(inline_.begin(), inline_.end());
  spilled_.push_back(piece);
}

}  // namespace mr::transport
