#include "harness/engine/impair_command.h"

#include <cstdio>

#include "harness/engine/command_args.h"
#include "harness/engine/ladder_note.h"
#include "harness/peer/data_pattern.h"

namespace mr::engine {
namespace {

std::string percent(uint64_t ppm) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g%%", static_cast<double>(ppm) / 10000.0);
  return text;
}

}  // namespace

void impair(const script::Command& c, TestContext& ctx) {
  Args a(c, ctx);
  if (ctx.aborted) return;
  const std::string dir = a.name("dir", "both");
  if (dir != "tester" && dir != "dut" && dir != "both")
    return ctx.error(a.pos("dir"),
                     "impair dir: tester (tester -> DUT), dut (DUT -> tester) or both");
  std::vector<FaultDirection> directions;
  if (dir != "dut") directions.push_back(FaultDirection::kTester);
  if (dir != "tester") directions.push_back(FaultDirection::kDut);
  // plane=P, ev=E: only the Ext frames on that plane, with that EV (their MXH says which).
  PathSelector on;
  if (a.has("plane")) on.plane = static_cast<uint8_t>(a.number("plane", 0));
  if (a.has("ev")) on.ev = static_cast<uint16_t>(a.number("ev", 0));
  if (ctx.aborted) return;
  const std::string which = on.every_frame() ? "" : " of " + on.to_string();
  if (c.target == "off") {
    const size_t selectors = (a.has("plane") ? 1U : 0U) + (a.has("ev") ? 1U : 0U);
    if (c.args.size() > (a.has("dir") ? 1U : 0U) + selectors)
      return ctx.error(c.pos, "impair off takes only dir=, plane= and ev=");
    for (auto d : directions) {
      ctx.faults->end_impairment(d, on.every_frame() ? std::nullopt : std::optional(on));
    }
    note_in_ladder(ctx, c, "impairment" + which + " off (" + dir + ")");
    return;
  }
  if (!c.target.empty())
    return ctx.error(c.pos,
                     "impair: unexpected '" + c.target + "' (impair off, or impair dir=...)");
  Impairment imp;
  uint64_t total = 0;
  auto rate = [&](const char* name, double& out) {
    const uint64_t ppm = a.ppm(name, 0);
    total += ppm;
    out = static_cast<double>(ppm) / 1e6;
    return ppm;
  };
  const uint64_t loss = rate("loss", imp.rates.drop);
  const uint64_t duplicate = rate("duplicate", imp.rates.duplicate);
  const uint64_t reorder = rate("reorder", imp.rates.reorder);
  const uint64_t delay = rate("delay", imp.rates.delay);
  const uint64_t corrupt = rate("corrupt", imp.rates.corrupt);
  const uint64_t ecn = rate("ecn", imp.rates.ecn);
  imp.delay_ns = a.number("delay_us", 100) * 1000;
  imp.line = c.pos.line;
  imp.on = on;
  const bool fixed_seed = a.has("seed");
  const uint64_t seed = a.number("seed", 0);
  if (ctx.aborted) return;
  if (total == 0) return ctx.error(c.pos, "impair: no rate given (loss=2% reorder=1% ...)");
  if (total > 1'000'000) return ctx.error(c.pos, "impair: the rates add up to more than 100%");
  for (auto d : directions) {
    imp.seed = fixed_seed ? seed
                          : peer::pattern_u64(ctx.seed, 0x1a9a1000 + uint64_t(c.pos.line) * 2 +
                                                            (d == FaultDirection::kDut ? 1 : 0));
    ctx.faults->impair(d, imp);
    note_in_ladder(ctx, c,
                   std::string("impairment") + which + " " +
                       (d == FaultDirection::kTester ? "tester -> DUT" : "DUT -> tester") +
                       ": loss " + percent(loss) + " duplicate " + percent(duplicate) +
                       " reorder " + percent(reorder) + " delay " + percent(delay) + " corrupt " +
                       percent(corrupt) + " ecn " + percent(ecn) + ", seed " +
                       std::to_string(imp.seed));
  }
}

}  // namespace mr::engine
