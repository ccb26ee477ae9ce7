// File: byte_reader.h
//
// Bounds-checked big-endian reads over a borrowed byte span. Every read first asks
// `need(n)`; nothing here can read past the end of the span.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>

#include "reference/error/expected.h"
#include "reference/wire/parse_error.h"

namespace mr::wire {

class ByteReader {
 public:
  // `base` is the offset of bytes[0] within the frame, for error messages.
  explicit ByteReader(std::span<const uint8_t> bytes, size_t base = 0)
      : bytes_(bytes), base_(base) {}

  size_t remaining() const { return bytes_.size() - pos_; }
  size_t offset() const { return base_ + pos_; }  // frame offset of the next byte
  std::span<const uint8_t> rest() const { return bytes_.subspan(pos_); }

  // Succeeds when n more bytes are available; otherwise names the header that needed them.
  Expected<void, ParseError> need(size_t n, std::string_view header) const {
    if (remaining() >= n) [[likely]]
      return {};
    return short_of(n, header);
  }

  // Unchecked reads: call need() first. Each advances the cursor. The wider ones load
  // the word whole and swap it: assembled byte by byte, a 64-bit field took 16 loads.
  uint8_t u8() { return bytes_[pos_++]; }
  uint16_t u16() { return big_endian<uint16_t>(); }
  uint32_t u24() {
    uint32_t v = uint32_t{bytes_[pos_]} << 16 | uint32_t{bytes_[pos_ + 1]} << 8 | bytes_[pos_ + 2];
    pos_ += 3;
    return v;
  }
  uint32_t u32() { return big_endian<uint32_t>(); }
  uint64_t u64() { return big_endian<uint64_t>(); }
  // Copies the next N bytes in one move (addresses): byte-by-byte stores followed by a
  // word-wide read of the same bytes stall store-to-load forwarding.
  template <size_t N>
  void copy_into(std::array<uint8_t, N>& out) {
    std::memcpy(out.data(), bytes_.data() + pos_, N);
    pos_ += N;
  }
  std::span<const uint8_t> take(size_t n) {
    auto s = bytes_.subspan(pos_, n);
    pos_ += n;
    return s;
  }

 private:
  template <class T>
  T big_endian() {
    T v;
    std::memcpy(&v, bytes_.data() + pos_, sizeof v);
    pos_ += sizeof v;
    if constexpr (std::endian::native == std::endian::little) {
      if constexpr (sizeof v == 2) v = __builtin_bswap16(v);
      if constexpr (sizeof v == 4) v = __builtin_bswap32(v);
      if constexpr (sizeof v == 8) v = __builtin_bswap64(v);
    }
    return v;
  }
  // The cold half of need(): builds the error message.
  Unexpected<ParseError> short_of(size_t n, std::string_view header) const;

  std::span<const uint8_t> bytes_;
  size_t base_ = 0;
  size_t pos_ = 0;
};

}  // namespace mr::wire
