// File: sack_psn_list.h
//
// A SACKETH bitmap as a script writes it: the PSNs after the cumulative PSN (the ACK's
// BTH PSN) that it reports received, `SACKETH(sacked=[P+2, P+5])`. The bitmap's other
// rule, that every PSN at or before the cumulative one counts as received (spec 19.3),
// is filled in when a packet is built and checked when one is matched, so a script never
// spells it out and cannot get it wrong.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "harness/engine/symbols.h"
#include "harness/script/ast.h"
#include "reference/error/expected.h"
#include "reference/wire/sacketh.h"

namespace mr::engine {

// The list's PSNs, each taken modulo 2^24 (PSN arithmetic wraps as on the wire).
Expected<std::vector<uint32_t>, std::string> evaluate_psn_list(const script::Expr& list,
                                                               const SymbolTable& symbols);

// The cumulative PSN an ACK or NAK's SACKETH stands on. An ACK says it: its BTH PSN. A NAK's
// BTH PSN is the packet it refuses, an ATOMIC_ACKNOWLEDGE's its ATOMIC's; there
// (`from_bitmap`) it is read from the bitmap: R = (C + 1) rounded down to 8, every PSN from R
// to C received and C + 1 not, so with R inside the bitmap C is R - 1 plus the run of ones
// from R; otherwise R - 1.
uint32_t cumulative_psn(const wire::Sacketh& sacketh, uint32_t bth_psn, bool from_bitmap);

// Whether `psn` is at or before `cumulative` in 24-bit PSN order (half the space back).
bool at_or_before(uint32_t psn, uint32_t cumulative);

// The bitmap over sacketh's base (sack_ref + sack_offset) that reports `sacked` and every
// PSN at or before `cumulative`; listed PSNs outside its 64 are not reported.
uint64_t sack_bitmap(const wire::Sacketh& sacketh, uint32_t cumulative,
                     std::span<const uint32_t> sacked);

// What a received bitmap says: the PSNs after `cumulative` it reports, in PSN order, and
// those at or before it that it wrongly reports missing.
struct SackReading {
  std::vector<uint32_t> sacked;
  std::vector<uint32_t> missing_at_or_before;
};
SackReading read_sack(const wire::Sacketh& sacketh, uint32_t cumulative);

// "[0x000102, 0x000105]".
std::string psn_list_text(std::span<const uint32_t> psns);

}  // namespace mr::engine
