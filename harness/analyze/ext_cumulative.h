// File: ext_cumulative.h
//
// The cumulative PSN C an Ext ACK or NAK shows, for the checkers that judge its window: an
// ACK's BTH PSN; a NAK's or an ATOMIC_ACKNOWLEDGE's as its bitmap shows it from the SACK
// reference R (section 19.3). A bitmap that does not cover R shows only that C + 1 rounds
// down to R, so C is one of R - 1 .. R + 6: the checks judge with whichever end of that
// range cannot misjudge a conformant receiver.
#pragma once

#include <cstdint>

#include "harness/analyze/checker.h"
#include "reference/wire/psn.h"
#include "reference/wire/roce_packet.h"

namespace mr::analyze {

struct CumulativeRange {
  uint32_t earliest = 0;
  uint32_t latest = 0;
};

inline CumulativeRange ext_cumulative_psn(const PacketContext& c) {
  const wire::Sacketh& s = *c.p.sacketh;
  if (!wire::cumulative_in_bitmap(c.p)) return {c.psn(), c.psn()};
  const uint32_t ref = s.sack_ref.value();
  const bool covers_ref = ((ref - s.bitmap_base().value()) & wire::kPsnMask) < 64;
  if (!covers_ref) return {(ref - 1) & wire::kPsnMask, (ref + 6) & wire::kPsnMask};
  const uint32_t shown = s.cumulative(c.p.bth.psn, true).value();
  return {shown, shown};
}

}  // namespace mr::analyze
