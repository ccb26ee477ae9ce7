// File: byte_array.h
//
// `ByteArray<N>`: a wire field of N opaque bytes (SECH's header tag, the secure packet
// tag). AEAD outputs are bytes, not numbers, as Scapy shows them: text is lower-case hex,
// two digits per byte, and parse() takes exactly that (an optional 0x prefix allowed).
#pragma once

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace mr::wire {

template <size_t N>
struct ByteArray {
  static constexpr size_t kBytes = N;
  std::array<uint8_t, N> bytes{};

  std::string to_string() const {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string s;
    s.reserve(2 * N);
    for (uint8_t b : bytes) {
      s.push_back(kDigits[b >> 4]);
      s.push_back(kDigits[b & 0xf]);
    }
    return s;
  }
  static std::optional<ByteArray> parse(std::string_view text) {
    if (text.starts_with("0x") || text.starts_with("0X")) text.remove_prefix(2);
    if (text.size() != 2 * N) return std::nullopt;
    ByteArray a;
    for (size_t i = 0; i < N; ++i) {
      const int hi = digit(text[2 * i]);
      const int lo = digit(text[2 * i + 1]);
      if (hi < 0 || lo < 0) return std::nullopt;
      a.bytes[i] = static_cast<uint8_t>(hi << 4 | lo);
    }
    return a;
  }
  friend bool operator==(const ByteArray&, const ByteArray&) = default;

 private:
  static constexpr int digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }
};

template <class T>
inline constexpr bool kIsByteArray = false;
template <size_t N>
inline constexpr bool kIsByteArray<ByteArray<N>> = true;

// Fields shown and read as text rather than as integers: addresses and byte arrays. The
// generic field walkers (JSON, scripts, text) branch on this instead of listing types.
template <class T>
concept TextField = requires(const T& t, std::string_view s) {
  { t.to_string() } -> std::convertible_to<std::string>;
  { T::parse(s) } -> std::same_as<std::optional<T>>;
};

// What a text field's value must be, for error messages: "an address", "8 bytes of hex".
template <TextField T>
std::string text_field_kind() {
  if constexpr (kIsByteArray<T>) {
    return std::to_string(T::kBytes) + " bytes of hex";
  } else {
    return "an address";
  }
}

}  // namespace mr::wire
