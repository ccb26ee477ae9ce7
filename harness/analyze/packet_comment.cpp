#include "harness/analyze/packet_comment.h"

#include <cstring>

namespace mr::analyze {
namespace {

constexpr uint32_t kEpbType = 6;
constexpr uint16_t kOptEnd = 0;
constexpr uint16_t kOptComment = 1;

uint32_t swap32(uint32_t v) { return __builtin_bswap32(v); }
uint16_t swap16(uint16_t v) { return __builtin_bswap16(v); }

}  // namespace

std::string_view epb_comment(std::span<const uint8_t> file, uint64_t at) {
  if (at > file.size() || file.size() - at < 32) return {};
  auto u32 = [&](uint64_t off) {
    uint32_t v = 0;
    std::memcpy(&v, file.data() + off, 4);
    return v;
  };
  auto u16 = [&](uint64_t off) {
    uint16_t v = 0;
    std::memcpy(&v, file.data() + off, 2);
    return v;
  };
  bool swapped = false;
  if (u32(at) != kEpbType) {
    if (swap32(u32(at)) != kEpbType) return {};
    swapped = true;
  }
  auto r32 = [&](uint64_t off) { return swapped ? swap32(u32(off)) : u32(off); };
  auto r16 = [&](uint64_t off) { return swapped ? swap16(u16(off)) : u16(off); };
  const uint64_t block_len = r32(at + 4);
  const uint64_t caplen = r32(at + 20);
  if (block_len > file.size() - at) return {};
  const uint64_t end = at + block_len - 4;
  uint64_t opt = at + 28 + ((caplen + 3) & ~uint64_t{3});
  while (opt + 4 <= end) {
    const uint16_t code = r16(opt);
    const uint16_t len = r16(opt + 2);
    if (code == kOptEnd || opt + 4 + len > end) return {};
    if (code == kOptComment) {
      return {reinterpret_cast<const char*>(file.data() + opt + 4), len};
    }
    opt += 4 + ((len + 3U) & ~3U);
  }
  return {};
}

bool is_tester_comment(std::string_view c) {
  return c.ends_with(" inject") || c.ends_with(" probe");
}

}  // namespace mr::analyze
