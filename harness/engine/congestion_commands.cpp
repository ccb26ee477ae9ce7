#include "harness/engine/congestion_commands.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "harness/engine/command_args.h"
#include "harness/engine/dut_commands.h"

namespace mr::engine {

void expect_cwnd(const script::Command& c, TestContext& ctx) {
  Args a(c, ctx);
  QpBinding* qp = named_dut_qp(c, ctx);
  if (!qp || ctx.aborted) return;
  const uint64_t want = a.number("bytes", 0);
  if (ctx.aborted) return;
  auto info = checked(ctx, c.pos, dut_client(ctx).query_qp(qp->dut_qpn));
  if (!info) return;
  if (!info->cwnd) {
    return ctx.fail(c.pos, "cwnd", "the QP's congestion window", "none",
                    "query_qp reports no attrs.cwnd: the QP is not in extension mode with CC");
  }
  const double ratio = std::clamp(ctx.pixit.parameter("R_SC_CWND_TOLERANCE", 0.05), 0.0, 1.0);
  const auto slack =
      std::max<uint64_t>(static_cast<uint64_t>(std::floor(ratio * double(want))), qp->mtu);
  const uint64_t got = *info->cwnd;
  const uint64_t off = got > want ? got - want : want - got;
  if (off <= slack) return;
  ctx.fail(a.pos("bytes"), "cwnd",
           std::to_string(want) + " bytes (+/- " + std::to_string(slack) + ")",
           std::to_string(got) + " bytes",
           "the congestion window differs from section 26.2's by more than the larger of "
           "R_SC_CWND_TOLERANCE and one PMTU (query_qp attrs.cwnd)");
}

}  // namespace mr::engine
