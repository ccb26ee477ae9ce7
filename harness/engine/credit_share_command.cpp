#include "harness/engine/credit_share_command.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "harness/engine/command_args.h"
#include "harness/engine/ladder_note.h"
#include "reference/transport/ext/receiver_credit.h"

namespace mr::engine {
namespace {

// The credit limit is 16-bit (units of 256 bytes, compared modulo 2^16): sampled this often,
// one step's rise wraps only past 2^16 x 256 bytes per 100 us (about 168 Gbyte/s per QP).
constexpr uint64_t kSampleNs = 100'000;

struct CreditQp {
  std::string name;  // the script's tester QP
  uint32_t qpn = 0;
  uint16_t limit = 0;  // at the latest sample
  uint64_t rise = 0;   // units, in the current window
};

// The tester's QP's credit limit, or nullopt when it is not (or no longer) in credit mode.
std::optional<uint16_t> limit_of(const peer::ReferencePeer& peer, uint32_t qpn) {
  const auto* q = peer.qp(qpn);
  if (q == nullptr || !q->ext || !q->ext->credit_tx) return std::nullopt;
  return q->ext->credit_tx->limit();
}

}  // namespace

void expect_credit_share(const script::Command& c, TestContext& ctx) {
  Args a(c, ctx);
  const uint64_t windows = a.number("windows", 2);
  if (ctx.aborted) return;
  if (windows == 0 || windows > 1000)
    return ctx.error(a.pos("windows"), "tester expect_credit_share: windows is 1 to 1000");
  peer::ReferencePeer* peer = ctx.driven->peer();
  if (peer == nullptr) return ctx.error(c.pos, "tester expect_credit_share: no tester QP");
  std::vector<CreditQp> qps;
  for (const auto& [name, t] : ctx.tester_qps) {
    if (t.dut_qp.empty()) continue;
    if (auto l = limit_of(*peer, t.qpn)) qps.push_back({name, t.qpn, *l, 0});
  }
  const auto wanted = static_cast<size_t>(ctx.pixit.parameter("N_CR_FAIR_QPS", 4));
  if (qps.size() != wanted) {
    return ctx.fail(c.pos, "credit QPs", std::to_string(wanted) + " (N_CR_FAIR_QPS)",
                    std::to_string(qps.size()),
                    "MR-CR-11: the tester's QPs in credit mode with the DUT (the DUT agreed "
                    "CREDIT on this many connections)");
  }
  const double tolerance = std::clamp(ctx.pixit.parameter("R_CR_FAIR_TOLERANCE", 0.2), 0.0, 1.0);
  const auto width_ns =
      static_cast<uint64_t>(std::max(ctx.pixit.parameter("T_CR_FAIR_WINDOW", 1000), 1.0) * 1000);
  for (uint64_t w = 0; w < windows && !ctx.aborted; ++w) {
    for (auto& q : qps) q.rise = 0;
    const uint64_t start = ctx.port.now_ns();
    for (uint64_t t = start; t < start + width_ns;) {
      t = std::min(start + width_ns, t + kSampleNs);
      ctx.port.wait_until(t);
      for (auto& q : qps) {
        const uint16_t now = limit_of(*peer, q.qpn).value_or(q.limit);
        q.rise += static_cast<uint16_t>(now - q.limit);
        q.limit = now;
      }
    }
    ctx.last_event_ns = ctx.port.now_ns();
    // A QP whose WRITEs all went had no demand at the end of the window: its share says
    // nothing of the receiver (the script's transfers are too short for the windows).
    for (const auto& q : qps) {
      const auto* qp = peer->qp(q.qpn);
      if (qp == nullptr || qp->sq.empty())
        return ctx.error(c.pos, "tester expect_credit_share: " + q.name +
                                    " had nothing left to send by the end of window " +
                                    std::to_string(w + 1) + ": give it a longer transfer");
    }
    uint64_t total = 0;
    for (const auto& q : qps) total += q.rise;
    const double share = static_cast<double>(total) / static_cast<double>(qps.size());
    std::string line = "credit window " + std::to_string(w + 1) + ":";
    const CreditQp* outside = nullptr;
    for (const auto& q : qps) {
      line += " " + q.name + " +" + std::to_string(q.rise * transport::ext::kCreditUnit) + " B";
      const auto rise = static_cast<double>(q.rise);
      if (outside == nullptr && (rise < share * (1 - tolerance) || rise > share * (1 + tolerance)))
        outside = &q;
    }
    note_in_ladder(ctx, c,
                   line + ", total " + std::to_string(total * transport::ext::kCreditUnit) + " B");
    if (total == 0) {
      return ctx.fail(c.pos, "credit", "grants to QPs with demand", "none in the window",
                      "MR-CR-11: no QP's credit rose in window " + std::to_string(w + 1));
    }
    if (outside != nullptr) {
      char want[96];
      std::snprintf(want, sizeof want, "%.0f B +/- %.0f%% (the window's rise / %zu)",
                    share * transport::ext::kCreditUnit, tolerance * 100, qps.size());
      return ctx.fail(c.pos, outside->name, want,
                      std::to_string(outside->rise * transport::ext::kCreditUnit) + " B",
                      "MR-CR-11: a QP's credit rise in window " + std::to_string(w + 1) +
                          " is outside its share of the receiver's grants (the ladder lists "
                          "them)");
    }
  }
}

}  // namespace mr::engine
