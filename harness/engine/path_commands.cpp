#include "harness/engine/path_commands.h"

#include <algorithm>
#include <string>

#include "harness/engine/command_args.h"
#include "harness/engine/dut_commands.h"
#include "harness/engine/packet_synthesis.h"

namespace mr::engine {

void set_ev_state(const script::Command& c, TestContext& ctx) {
  Args a(c, ctx);
  QpBinding* qp = named_dut_qp(c, ctx);
  if (!qp || ctx.aborted) return;
  const uint64_t ev = a.number("ev", 0);
  const std::string state = a.name("state", "DENIED");
  if (ctx.aborted) return;
  auto after = checked(ctx, c.pos, dut_client(ctx).set_ev_state(qp->dut_qpn, ev, state));
  // Denying always succeeds; allowing leaves an ASSUMED_BAD entry as it is (section 25.1),
  // so only a denial's answer is judged here.
  if (after && state == "DENIED" && *after != "DENIED") {
    ctx.fail(a.pos("state"), "ev_state", "DENIED", *after,
             "the DUT did not deny EV " + format_value(ev, 16));
  }
}

void set_port(const script::Command& c, TestContext& ctx) {
  Args a(c, ctx);
  const uint64_t plane = a.number("plane", 0);
  const bool up = a.number("up", 1) != 0;
  if (!ctx.aborted) checked(ctx, c.pos, dut_client(ctx).set_port(plane, up));
}

void expect_ev_state(const script::Command& c, TestContext& ctx) {
  Args a(c, ctx);
  QpBinding* qp = named_dut_qp(c, ctx);
  if (!qp || ctx.aborted) return;
  const uint64_t ev = a.number("ev", 0);
  const std::string want = a.name("state", "GOOD");
  if (ctx.aborted) return;
  auto info = checked(ctx, c.pos, dut_client(ctx).query_qp(qp->dut_qpn));
  if (!info) return;
  const std::string shown_ev = format_value(ev, 16);
  if (!info->ev_set) {
    return ctx.fail(c.pos, "ev_set", "the QP's EV set in use", "none",
                    "query_qp reports no EV set: the QP is not in extension mode");
  }
  const auto entry = std::ranges::find(*info->ev_set, ev, &protocol::EvEntryInfo::ev);
  if (entry == info->ev_set->end()) {
    return ctx.fail(a.pos("ev"), "ev_set", "an entry with EV " + shown_ev, "none",
                    "EV " + shown_ev + " is not in the QP's EV set");
  }
  const std::string got = entry->state.value_or("(no state: base mode)");
  if (got != want) {
    ctx.fail(a.pos("state"), "ev_state", want, got,
             "the state of EV " + shown_ev + " differs (query_qp attrs.ev_set)");
  }
}

}  // namespace mr::engine
