// File: byte_writer.h
//
// Big-endian appends to a growing byte vector: the serialising twin of ByteReader.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace mr::wire {

class ByteWriter {
 public:
  explicit ByteWriter(std::vector<uint8_t>& out) : out_(out) {}

  void u8(uint8_t v) { out_.push_back(v); }
  void u16(uint16_t v) {
    u8(static_cast<uint8_t>(v >> 8));
    u8(static_cast<uint8_t>(v));
  }
  void u24(uint32_t v) {
    u8(static_cast<uint8_t>(v >> 16));
    u16(static_cast<uint16_t>(v));
  }
  void u32(uint32_t v) {
    u16(static_cast<uint16_t>(v >> 16));
    u16(static_cast<uint16_t>(v));
  }
  void u64(uint64_t v) {
    u32(static_cast<uint32_t>(v >> 32));
    u32(static_cast<uint32_t>(v));
  }
  void bytes(std::span<const uint8_t> b) { out_.insert(out_.end(), b.begin(), b.end()); }
  void zeros(size_t n) { out_.insert(out_.end(), n, 0); }
  size_t size() const { return out_.size(); }

 private:
  std::vector<uint8_t>& out_;
};

}  // namespace mr::wire
