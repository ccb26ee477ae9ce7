// File: packet_gather.h
//
// One packet's payload as pieces of the sender's memory regions: bytes [offset, offset + n)
// of a work request's gather list, resolved to memory, so that the frame builder copies each
// byte once, straight from its region into the frame. Where a region cannot be read (it was
// deregistered after the post, which validated it) the rest of the packet is zeros.
//
// Usage:
//   const PacketGather g = PacketGather::of(qp, wqe, offset, n, memory);
//   ctx.send(p, g.pieces());
// The pieces point into the regions: they are good until the next memory operation.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "reference/memory/memory_table.h"
#include "reference/transport/queue_pair.h"
#include "reference/wire/frame_builder.h"

namespace mr::transport {

class PacketGather {
 public:
  static PacketGather of(const QueuePair& qp, const SendWqe& w, uint32_t offset, uint32_t n,
                         const memory::MemoryTable& mem);

  wire::PayloadPieces pieces() const {
    if (!spilled_.empty()) return spilled_;
    return std::span(inline_).first(count_);
  }
  uint32_t size() const { return size_; }
  // False when a region could not be read and zeros stand for its bytes (a local error).
  bool readable() const { return readable_; }

 private:
  void add(std::span<const uint8_t> piece);

  // Most work requests have one or two SGEs: their pieces need no allocation.
  static constexpr size_t kInline = 4;
  std::array<std::span<const uint8_t>, kInline> inline_{};
  size_t count_ = 0;
  std::vector<std::span<const uint8_t>> spilled_;  // every piece, once there are more
  uint32_t size_ = 0;
  bool readable_ = true;
};

}  // namespace mr::transport
