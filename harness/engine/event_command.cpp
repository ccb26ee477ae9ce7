#include "harness/engine/event_command.h"

#include "harness/engine/evaluate.h"
#include "reference/wire/psn.h"

namespace mr::engine {
namespace {

// `dir=tester` (tester -> DUT) or `dir=dut` (DUT -> tester), written as a bare word.
std::optional<FaultDirection> direction_of(const script::Expr& value) {
  const bool word =
      value.kind == script::Expr::Kind::kName || value.kind == script::Expr::Kind::kSymbol;
  if (!word) return std::nullopt;
  if (value.text == "tester") return FaultDirection::kTester;
  if (value.text == "dut") return FaultDirection::kDut;
  return std::nullopt;
}

}  // namespace

void arm_event(const script::Command& c, TestContext& ctx, FaultPort& faults) {
  auto action = fault_action_from_name(c.name);
  if (!action) return ctx.error(c.pos, "event: " + action.error());
  const QpBinding* qp = ctx.command_qp(c, "event");
  if (qp == nullptr) return;
  FaultEvent e;
  e.action = *action;
  e.line = c.pos.line;
  bool have_dir = false;
  bool have_psn = false;
  for (const auto& a : c.args) {
    if (a.name == "dir") {
      const auto direction = direction_of(a.value);
      if (!direction)
        return ctx.error(a.pos,
                         "event dir: expected tester (tester -> DUT) or dut (DUT -> tester)");
      e.direction = *direction;
      have_dir = true;
      continue;
    }
    auto v = evaluate_number(a.value, ctx.symbols);
    if (!v) return ctx.error(a.pos, "event " + a.name + ": " + v.error());
    if (a.name == "psn") {
      e.psn = static_cast<uint32_t>(*v & wire::kPsnMask);
      have_psn = true;
    } else if (a.name == "tx" && *v >= 1) {
      e.tx = static_cast<uint32_t>(*v);
    } else if (a.name == "us" && e.action == FaultAction::kDelay) {
      e.delay_ns = *v * 1000;
    } else if (a.name == "byte" && e.action == FaultAction::kCorrupt) {
      e.byte_offset = static_cast<size_t>(*v);
    } else {
      return ctx.error(a.pos, "event " + c.name + ": unexpected argument '" + a.name +
                                  "' (dir=, psn=, tx=N>=1, us= for delay, byte= for corrupt)");
    }
  }
  if (!have_dir || !have_psn)
    return ctx.error(c.pos, "event " + c.name + " needs dir=tester|dut and psn=EXPR");
  e.dqpn = e.direction == FaultDirection::kTester ? qp->dut_qpn : qp->connection.tester_qpn;
  faults.arm(e);
}

}  // namespace mr::engine
