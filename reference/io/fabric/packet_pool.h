// File: packet_pool.h
//
// The frames in flight, by index. A released packet's buffer keeps its capacity and is
// handed out again, so a fabric in steady state copies frames without allocating. Indices
// (not pointers) travel through events and queues: the pool may grow.
#pragma once

#include <cstdint>
#include <vector>

#include "reference/io/fabric/ecmp_hash.h"
#include "reference/io/fabric/frame_headers.h"

namespace mr::io::fabric {

struct Packet {
  std::vector<uint8_t> bytes;
  FrameHeaders headers;  // parsed once, at the sending endpoint's port
  // The IP traffic class as the bytes now hold it (marking and trimming update both): each
  // hop reads it here, not from a frame buffer that is cold in the cache.
  uint8_t traffic_class = 0;
  FlowKey flow;
  uint32_t dst_endpoint = 0;
  uint64_t arrival_ps = 0;  // at the receiving endpoint
};

class PacketPool {
 public:
  uint32_t acquire() {
    if (free_.empty()) {
      packets_.emplace_back();
      return static_cast<uint32_t>(packets_.size() - 1);
    }
    const uint32_t id = free_.back();
    free_.pop_back();
    return id;
  }
  void release(uint32_t id) { free_.push_back(id); }
  Packet& operator[](uint32_t id) { return packets_[id]; }
  const Packet& operator[](uint32_t id) const { return packets_[id]; }
  size_t in_use() const { return packets_.size() - free_.size(); }

 private:
  std::vector<Packet> packets_;
  std::vector<uint32_t> free_;
};

}  // namespace mr::io::fabric
