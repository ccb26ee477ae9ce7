// File: byte_writer.h
//
// Big-endian writes: the serialising twin of ByteReader. Two kinds of destination:
//   ByteWriter w(vector)   appends, growing the vector (crafting, tests, the control path)
//   ByteWriter w(span)     fills a buffer sized beforehand from its start (a sender's frame,
//                          sized once: no reallocation and no per-byte capacity check)
// Writing past the end of a span is a bug in the caller's sizing, not bad input: it stops the
// program rather than write outside the buffer.
#pragma once

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>
#include <vector>

namespace mr::wire {

// The big-endian writes, over whatever room Derived::claim(n) gives.
template <class Derived>
class BigEndianWriter {
 public:
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
  // `b` must not lie in a vector being appended to: growing it may move its bytes.
  void bytes(std::span<const uint8_t> b) {
    if (!b.empty()) std::memcpy(claim(b.size()), b.data(), b.size());
  }
  void zeros(size_t n) {
    if (n != 0) std::memset(claim(n), 0, n);
  }

 private:
  uint8_t* claim(size_t n) { return static_cast<Derived*>(this)->claim(n); }
};

class ByteWriter : public BigEndianWriter<ByteWriter> {
 public:
  explicit ByteWriter(std::vector<uint8_t>& out) : grow_(&out) {}
  explicit ByteWriter(std::span<uint8_t> out) : fixed_(out) {}

  // Bytes written so far: the vector's size, or the offset into the span.
  size_t size() const { return grow_ != nullptr ? grow_->size() : at_; }

 private:
  friend class BigEndianWriter<ByteWriter>;
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

// A fixed-size header composed in a local array, then stored into a ByteWriter at once:
//   HeaderBytes<kBthSize> b;  b.u8(opcode);  ...;  w.bytes(b.written());
// Field by field into the ByteWriter, every byte store may alias the writer's own cursor (a
// uint8_t may alias anything), so the compiler reloads and re-checks it after each one; here
// the array and cursor are local and the stores merge. Writing more than N bytes is a bug in
// the header's code and does not compile away: it stops the program.
template <size_t N>
class HeaderBytes : public BigEndianWriter<HeaderBytes<N>> {
 public:
  std::span<const uint8_t> written() const { return std::span(b_).first(at_); }

 private:
  friend class BigEndianWriter<HeaderBytes<N>>;
  uint8_t* claim(size_t n) {
    if (n > N - at_) std::abort();
    uint8_t* p = b_.data() + at_;
    at_ += n;
    return p;
  }

  std::array<uint8_t, N> b_;
  size_t at_ = 0;
};

}  // namespace mr::wire
