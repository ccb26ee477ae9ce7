// File: received_psn_window.cpp
#include "reference/transport/ext/received_psn_window.h"

#include <algorithm>
#include <bit>

#include "reference/wire/psn.h"

namespace mr::transport::ext {
namespace {

using wire::psn_add;
using wire::psn_diff;

constexpr int32_t kHalfSpace = int32_t{1} << 23;

}  // namespace

ReceivedPsnWindow::ReceivedPsnWindow(uint32_t first_psn, uint8_t mpr)
    : cumulative_(psn_add(first_psn, -1)),
      right_edge_(cumulative_),
      mpr_(std::max<uint8_t>(mpr, 1)) {
  right_edge_ = psn_add(cumulative_, window());
  reserve_for(window());
}

void ReceivedPsnWindow::reserve_for(uint32_t window) {
  const size_t words = std::bit_ceil((size_t{window} + 63) / 64);
  if (words <= words_.size()) return;
  // Re-lay the recorded PSNs (all within the old ring's reach of C) into the larger ring.
  std::vector<uint32_t> recorded;
  if (top_) {
    for (uint32_t p = psn_add(cumulative_, 1); psn_diff(p, *top_) <= 0; p = psn_add(p, 1)) {
      if (bit(p)) recorded.push_back(p);
    }
  }
  words_.assign(words, 0);
  for (uint32_t p : recorded) set_bit(p);
}

bool ReceivedPsnWindow::bit(uint32_t psn) const {
  const size_t index = psn % (words_.size() * 64);
  return ((words_[index / 64] >> (index % 64)) & 1) != 0;
}

void ReceivedPsnWindow::set_bit(uint32_t psn) {
  const size_t index = psn % (words_.size() * 64);
  words_[index / 64] |= uint64_t{1} << (index % 64);
}

void ReceivedPsnWindow::clear_bit(uint32_t psn) {
  const size_t index = psn % (words_.size() * 64);
  words_[index / 64] &= ~(uint64_t{1} << (index % 64));
}

PsnArrival ReceivedPsnWindow::classify(uint32_t psn) const {
  // d = (p - (C + 1)) mod 2^24, as the spec's table reads it.
  const uint32_t d = psn_add(psn, -static_cast<int64_t>(cumulative_) - 1);
  if (d >= static_cast<uint32_t>(kHalfSpace)) return PsnArrival::kDuplicate;
  if (d >= window()) return PsnArrival::kBeyondWindow;
  return bit(psn) ? PsnArrival::kDuplicate : PsnArrival::kNew;
}

void ReceivedPsnWindow::record(uint32_t psn) {
  if (classify(psn) != PsnArrival::kNew) return;
  set_bit(psn);
  if (!top_ || psn_diff(psn, *top_) > 0) top_ = psn;
  // Advance C over the received run after it, clearing the bits it passes.
  uint32_t next = psn_add(cumulative_, 1);
  while (bit(next)) {
    clear_bit(next);
    cumulative_ = next;
    next = psn_add(next, 1);
  }
  if (top_ && psn_diff(*top_, cumulative_) <= 0) top_.reset();
  // With MPR unchanged the edge moves with C.
  if (psn_diff(psn_add(cumulative_, window()), right_edge_) > 0)
    right_edge_ = psn_add(cumulative_, window());
}

bool ReceivedPsnWindow::received(uint32_t psn) const {
  const int32_t after = psn_diff(psn, cumulative_);
  if (after <= 0) return true;
  if (!top_ || psn_diff(psn, *top_) > 0) return false;
  return bit(psn);
}

uint8_t ReceivedPsnWindow::set_mpr(uint8_t wanted) {
  wanted = std::max<uint8_t>(wanted, 1);
  // The smallest MPR whose edge is not before the advertised one.
  const auto needed = static_cast<uint32_t>(std::max(0, psn_diff(right_edge_, cumulative_)));
  const auto floor =
      static_cast<uint8_t>(std::min<uint32_t>(kMaxMpr, (needed + kPsnsPerMpr - 1) / kPsnsPerMpr));
  mpr_ = std::max(wanted, floor);
  reserve_for(window());
  if (psn_diff(psn_add(cumulative_, window()), right_edge_) > 0)
    right_edge_ = psn_add(cumulative_, window());
  return mpr_;
}

}  // namespace mr::transport::ext
