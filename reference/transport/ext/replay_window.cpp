#include "reference/transport/ext/replay_window.h"

#include <algorithm>

namespace mr::transport::ext {

ReplayWindow::ReplayWindow(uint64_t width, bool strict)
    : width_(std::max<uint64_t>(width, 1)), strict_(strict), bits_((width_ + 63) / 64, 0) {}

bool ReplayWindow::seen(uint64_t pn) const {
  const uint64_t slot = pn % width_;
  return (bits_[slot / 64] >> (slot % 64) & 1) != 0;
}

bool ReplayWindow::is_replay(uint64_t pn) const {
  if (pn > highest_) return false;
  if (strict_) return true;
  if (highest_ >= width_ && pn <= highest_ - width_) return true;
  return seen(pn);
}

void ReplayWindow::record(uint64_t pn) {
  if (pn > highest_) {
    // Slots of PNs that fall out of the window are reused by the PNs coming in.
    const uint64_t steps = std::min(pn - highest_, width_);
    for (uint64_t i = 1; i <= steps; ++i) {
      const uint64_t slot = (highest_ + i) % width_;
      bits_[slot / 64] &= ~(uint64_t{1} << (slot % 64));
    }
    highest_ = pn;
  }
  const uint64_t slot = pn % width_;
  bits_[slot / 64] |= uint64_t{1} << (slot % 64);
}

}  // namespace mr::transport::ext
