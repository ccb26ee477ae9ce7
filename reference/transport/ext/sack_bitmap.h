// File: sack_bitmap.h
//
// Which 64 PSNs an Ext ACK or NAK reports, and its bitmap (spec section 21.1, "Bitmap range";
// MR-SA-17, MR-SA-18). The SACK reference R is (C + 1) rounded down to a multiple of 8; the
// base B = R + O is:
//   - R while nothing after C was received or the newest received PSN (top) is before R + 64;
//   - for an ACK answering a packet with AR = 1 (or a RESYNC) with PSN t: the later of R and
//     (t - 56) rounded down, so t and the 56 PSNs before it are reported;
//   - otherwise the rotation cursor K when R <= K <= top, else R. After such an ACK, K moves
//     to the oldest missing PSN after B + 63 and before top, rounded down (R if none): the
//     first ACK after a loss reports the lowest hole, the next ones the farther holes in
//     order, then the lowest again. ACKs answering AR leave K where it is.
// Bit i reports PSN B + i: 1 when received or at or before C, 0 beyond top.
//
//   SackCursor cursor;
//   SackReport r = cursor.next(window, /*ara_trigger=*/std::nullopt);
//   sacketh.sack_ref = r.reference; sacketh.sack_offset = r.offset; sacketh.bitmap = r.bitmap;
#pragma once

#include <cstdint>
#include <optional>

#include "reference/transport/ext/received_psn_window.h"

namespace mr::transport::ext {

struct SackReport {
  uint32_t reference = 0;  // R
  uint16_t offset = 0;     // O, a multiple of 8 (0 .. 32,576 as this receiver chooses it)
  uint64_t bitmap = 0;     // bit i: PSN (R + O + i) mod 2^24
  bool ara = false;        // chosen for an AR (or RESYNC) trigger
  uint32_t base() const { return (reference + offset) & 0xffffff; }
};

// The rotation cursor K of one Ext QP's receiver.
class SackCursor {
 public:
  // `ara_lookback`: how far before an AR trigger the bitmap starts (56, so the trigger and
  // the 56 PSNs before it are reported); the ext-sack-base-early mutant gives 0.
  // `rotates`: false only for the ext-sack-no-rotation mutant, whose bitmaps stay at R.
  explicit SackCursor(uint32_t ara_lookback = 56, bool rotates = true)
      : ara_lookback_(ara_lookback), rotates_(rotates) {}

  // The report of the next ACK or NAK; `ara_trigger` is the PSN of the packet with AR = 1
  // (or the RESYNC) it answers, if it answers one.
  SackReport next(const ReceivedPsnWindow& window, std::optional<uint32_t> ara_trigger);

 private:
  uint32_t ara_lookback_;
  bool rotates_;
  std::optional<uint32_t> cursor_;  // K; none until a rotation moved it (K = R)
};

}  // namespace mr::transport::ext
