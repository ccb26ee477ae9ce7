// File: sack_bitmap.cpp
#include "reference/transport/ext/sack_bitmap.h"

#include "reference/wire/psn.h"

namespace mr::transport::ext {
namespace {

using wire::psn_add;
using wire::psn_diff;

// PSN space is 2^24, a multiple of 8, so rounding the value rounds the position too.
constexpr uint32_t round_down_8(uint32_t psn) { return psn & 0xfffff8; }

uint64_t bitmap_at(const ReceivedPsnWindow& w, uint32_t base) {
  uint64_t bits = 0;
  for (uint32_t i = 0; i < 64; ++i) {
    if (w.received(psn_add(base, i))) bits |= uint64_t{1} << i;
  }
  return bits;
}

// The oldest PSN after `from` and before `top` that was not received, if any.
std::optional<uint32_t> oldest_missing(const ReceivedPsnWindow& w, uint32_t from, uint32_t top) {
  for (uint32_t p = from; psn_diff(p, top) < 0; p = psn_add(p, 1)) {
    if (!w.received(p)) return p;
  }
  return std::nullopt;
}

}  // namespace

SackReport SackCursor::next(const ReceivedPsnWindow& w, std::optional<uint32_t> ara_trigger) {
  SackReport r;
  r.reference = round_down_8(psn_add(w.cumulative(), 1));
  const std::optional<uint32_t> top = w.top();
  uint32_t base = r.reference;
  const bool beyond_first_64 = top && psn_diff(*top, r.reference) >= 64;
  if (ara_trigger) {
    r.ara = true;
    uint32_t around = round_down_8(psn_add(*ara_trigger, -static_cast<int32_t>(ara_lookback_)));
    // MR-SA-18: never a base after the window's right edge, C + 128 x MPR, even for a
    // trigger beyond it (the NAK 0x67 of MR-NK-06 answers one).
    const uint32_t edge = round_down_8(psn_add(w.cumulative(), 128 * int32_t{w.mpr()}));
    if (psn_diff(around, edge) > 0) around = edge;
    if (psn_diff(around, r.reference) > 0) base = around;
  } else if (beyond_first_64 && rotates_) {
    if (cursor_ && psn_diff(*cursor_, r.reference) >= 0 && psn_diff(*cursor_, *top) <= 0)
      base = *cursor_;
    // The next rotation starts at the oldest hole past this bitmap, or back at R.
    const auto hole = oldest_missing(w, psn_add(base, 64), *top);
    cursor_ = hole ? round_down_8(*hole) : r.reference;
  }
  r.offset = static_cast<uint16_t>(psn_diff(base, r.reference));
  r.bitmap = bitmap_at(w, base);
  return r;
}

}  // namespace mr::transport::ext
