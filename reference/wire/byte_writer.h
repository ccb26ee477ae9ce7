// File: byte_writer.h
//
// Big-endian writes: the serialising twin of ByteReader. Two kinds of destination:
//   ByteWriter w(vector)   appends, growing the vector (crafting, tests, the control path)
//   ByteWriter w(span)     fills a buffer sized beforehand from its start (a sender's frame,
//                          sized once: no reallocation and no per-byte capacity check)
// Writing past the end of a span is a bug in the caller's sizing, not bad input: it stops the
// program rather than write outside the buffer.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>
#include <vector>

namespace mr::wire {

class ByteWriter {
 public:
  explicit ByteWriter(std::vector<uint8_t>& out) : grow_(&out) {}
  explicit ByteWriter(std::span<uint8_t> out) : fixed_(out) {}

  void u8(uint8_t v) { *claim(1) = v; }
  void u16(uint16_t v) {
    uint8_t* p = claim(2);
    p[0] = static_cast<uint8_t>(v >> 8);
    p[1] = static_cast<uint8_t>(v);
  }
  void u24(uint32_t v) {
    uint8_t* p = claim(3);
    p[0] = static_cast<uint8_t>(v >> 16);
    p[1] = static_cast<uint8_t>(v >> 8);
    p[2] = static_cast<uint8_t>(v);
  }
  void u32(uint32_t v) {
    uint8_t* p = claim(4);
    p[0] = static_cast<uint8_t>(v >> 24);
    p[1] = static_cast<uint8_t>(v >> 16);
    p[2] = static_cast<uint8_t>(v >> 8);
    p[3] = static_cast<uint8_t>(v);
  }
  void u64(uint64_t v) {
    u32(static_cast<uint32_t>(v >> 32));
    u32(static_cast<uint32_t>(v));
  }
  void bytes(std::span<const uint8_t> b) {
    if (!b.empty()) std::memcpy(claim(b.size()), b.data(), b.size());
  }
  void zeros(size_t n) {
    if (n != 0) std::memset(claim(n), 0, n);
  }
  // The room for `n` bytes the caller writes itself (a payload gathered in place).
  std::span<uint8_t> reserve(size_t n) { return {claim(n), n}; }
  // Bytes written so far: the vector's size, or the offset into the span.
  size_t size() const { return grow_ != nullptr ? grow_->size() : at_; }

 private:
  uint8_t* claim(size_t n) {
    if (grow_ != nullptr) {
      const size_t at = grow_->size();
      grow_->resize(at + n);
      return grow_->data() + at;
    }
    if (n > fixed_.size() - at_) {
      std::fprintf(stderr, "ByteWriter: %zu bytes past a %zu-byte buffer\n",
                   n - (fixed_.size() - at_), fixed_.size());
      std::abort();
    }
    uint8_t* p = fixed_.data() + at_;
    at_ += n;
    return p;
  }

  std::vector<uint8_t>* grow_ = nullptr;
  std::span<uint8_t> fixed_;
  size_t at_ = 0;
};

}  // namespace mr::wire
