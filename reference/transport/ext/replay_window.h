// File: replay_window.h
//
// Secure mode's anti-replay window for one receive epoch (spec section 19.4, MR-SE-06,
// MR-SE-07): the highest authenticated PN H and which PNs in (H - W, H] were authenticated.
// A PN at or below H - W, or one already seen, is a replay; any other is fresh, in whatever
// order multipath spraying delivers it. A ring of W bits, as in IPsec's anti-replay.
#pragma once

#include <cstdint>
#include <vector>

namespace mr::transport::ext {

class ReplayWindow {
 public:
  // `strict`: the ext-secure-strict-pn-order mutant, which takes any PN at or below H as
  // a replay (MR-SE-07).
  explicit ReplayWindow(uint64_t width, bool strict = false);

  bool is_replay(uint64_t pn) const;
  // The PN of an authenticated packet: H moves up to it, the bits it passes are cleared.
  void record(uint64_t pn);
  uint64_t highest() const { return highest_; }

 private:
  bool seen(uint64_t pn) const;
  uint64_t width_;
  bool strict_;
  uint64_t highest_ = 0;  // PNs start at 1, so 0 means none yet
  std::vector<uint64_t> bits_;
};

}  // namespace mr::transport::ext
