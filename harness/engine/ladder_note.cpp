#include "harness/engine/ladder_note.h"

namespace mr::engine {

void note_in_ladder(TestContext& ctx, const script::Command& c, const std::string& text) {
  report::PacketRecord r;
  r.t_ns = static_cast<int64_t>(ctx.port.now_ns() - ctx.t0_ns);
  r.from_tester = true;
  r.summary = text;
  const auto slash = ctx.script.path.find_last_of('/');
  // `impair` is its own command name; `bottleneck on`, `tester expect_credit_share` are not.
  r.script_ref = ctx.script.path.substr(slash == std::string::npos ? 0 : slash + 1) + ":" +
                 std::to_string(c.pos.line) + " " +
                 (c.actor == c.name ? c.actor : c.actor + " " + c.name);
  ctx.result.packets.push_back(std::move(r));
}

}  // namespace mr::engine
