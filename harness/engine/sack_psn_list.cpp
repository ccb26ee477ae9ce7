#include "harness/engine/sack_psn_list.h"

#include <cstdio>

#include "harness/engine/evaluate.h"
#include "reference/wire/psn.h"

namespace mr::engine {

namespace {
constexpr uint32_t kHalfPsnSpace = (wire::kPsnMask + 1) / 2;
constexpr unsigned kBitmapBits = 64;
}  // namespace

Expected<std::vector<uint32_t>, std::string> evaluate_psn_list(const script::Expr& list,
                                                               const SymbolTable& symbols) {
  if (list.kind != script::Expr::Kind::kList)
    return Unexpected(std::string("expected a list of PSNs such as [P+2, P+5]"));
  std::vector<uint32_t> out;
  out.reserve(list.items.size());
  for (size_t i = 0; i < list.items.size(); ++i) {
    auto v = evaluate_number(list.items[i], symbols);
    if (!v) return Unexpected("item " + std::to_string(i + 1) + ": " + v.error());
    out.push_back(static_cast<uint32_t>(*v & wire::kPsnMask));
  }
  return out;
}

uint32_t cumulative_psn(const wire::Sacketh& sacketh, uint32_t bth_psn, bool from_bitmap) {
  return sacketh.cumulative(bth_psn, from_bitmap).value();
}

bool at_or_before(uint32_t psn, uint32_t cumulative) {
  // Section 21.1's d = p - (C + 1) >= 2^23, with d here one more.
  const uint32_t d = (psn - cumulative) & wire::kPsnMask;
  return d == 0 || d > kHalfPsnSpace;
}

uint64_t sack_bitmap(const wire::Sacketh& sacketh, uint32_t cumulative,
                     std::span<const uint32_t> sacked) {
  const uint32_t base = sacketh.bitmap_base().value();
  uint64_t bitmap = 0;
  for (unsigned i = 0; i < kBitmapBits; ++i) {
    if (at_or_before((base + i) & wire::kPsnMask, cumulative)) bitmap |= uint64_t{1} << i;
  }
  for (const uint32_t psn : sacked) {
    const uint32_t i = (psn - base) & wire::kPsnMask;
    if (i < kBitmapBits) bitmap |= uint64_t{1} << i;
  }
  return bitmap;
}

SackReading read_sack(const wire::Sacketh& sacketh, uint32_t cumulative) {
  SackReading r;
  const uint32_t base = sacketh.bitmap_base().value();
  const uint64_t bitmap = sacketh.bitmap.value();
  for (unsigned i = 0; i < kBitmapBits; ++i) {
    const uint32_t psn = (base + i) & wire::kPsnMask;
    const bool set = ((bitmap >> i) & 1) != 0;
    if (at_or_before(psn, cumulative)) {
      if (!set) r.missing_at_or_before.push_back(psn);
    } else if (set) {
      r.sacked.push_back(psn);
    }
  }
  return r;
}

std::string psn_list_text(std::span<const uint32_t> psns) {
  std::string s = "[";
  for (const uint32_t psn : psns) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%06x", psn);
    s += (s.size() > 1 ? ", " : "") + std::string(buf);
  }
  return s + "]";
}

}  // namespace mr::engine
