// File: received_psn_window.h
//
// What an Ext receiver knows of the PSNs it was sent (spec section 21.1): the cumulative PSN C
// (it and every PSN before it received), which PSNs after C were received, the newest of them
// (top), and the window W = 128 x MPR it advertises. The right edge C + W never moves back:
// MPR is lowered only by as much as C advances (MR-SA-09), and never to 0.
//
// The record is a ring of bits for the PSNs C+1 .. C+W, sized to the largest window advertised
// (a power of two of 64-bit words), so an Ext QP's heap grows with its window: 128 bytes at
// MPR 8, 4 KiB at MPR 255. Advancing C clears each bit once: O(1) per packet amortised.
//
//   ReceivedPsnWindow w(/*first_psn=*/0x200, /*mpr=*/8);
//   if (w.classify(p) == PsnArrival::kNew) w.record(p);
//   w.cumulative();  // C
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace mr::transport::ext {

// How section 21.1's table classifies an accepted data packet's PSN.
enum class PsnArrival : uint8_t {
  kNew,           // inside the window, not received before: place, record, acknowledge
  kDuplicate,     // at or before C, or already recorded: acknowledge with DUP = 1
  kBeyondWindow,  // W <= d < 2^23: discard, NAK 0x67
};

class ReceivedPsnWindow {
 public:
  static constexpr uint32_t kPsnsPerMpr = 128;
  static constexpr uint8_t kMaxMpr = 255;

  // Nothing received yet: C = first_psn - 1. An MPR of 0 is taken as 1 (MR-SA-09).
  ReceivedPsnWindow(uint32_t first_psn, uint8_t mpr);

  PsnArrival classify(uint32_t psn) const;
  // Records a PSN that classify() called kNew (others are ignored) and advances C over every
  // received PSN after it.
  void record(uint32_t psn);

  uint32_t cumulative() const { return cumulative_; }
  // The newest PSN received after C; none when every received PSN is at or before C.
  std::optional<uint32_t> top() const { return top_; }
  // At or before C, or recorded after it.
  bool received(uint32_t psn) const;
  uint8_t mpr() const { return mpr_; }
  uint32_t window() const { return kPsnsPerMpr * mpr_; }
  // C + W as advertised: no later advertisement may move it back.
  uint32_t right_edge() const { return right_edge_; }

  // Advertises `wanted` (at least 1), or the smallest MPR that keeps the right edge where it
  // is if `wanted` would move it back. Returns the MPR now advertised.
  uint8_t set_mpr(uint8_t wanted);

  // Heap bytes of the record: what an Ext QP's receive state costs beyond its fixed part.
  size_t heap_bytes() const { return words_.capacity() * sizeof(uint64_t); }

 private:
  bool bit(uint32_t psn) const;
  void set_bit(uint32_t psn);
  void clear_bit(uint32_t psn);
  void reserve_for(uint32_t window);

  uint32_t cumulative_;
  uint32_t right_edge_;
  std::optional<uint32_t> top_;
  uint8_t mpr_;
  std::vector<uint64_t> words_;  // the ring: bit (psn mod 64 x size) for PSNs after C
};

}  // namespace mr::transport::ext
