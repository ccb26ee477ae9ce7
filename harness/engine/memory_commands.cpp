#include "harness/engine/memory_commands.h"

#include <algorithm>
#include <optional>

#include "harness/engine/byte_difference.h"
#include "harness/engine/command_args.h"
#include "harness/engine/dut_commands.h"
#include "harness/engine/tester_commands.h"
#include "harness/peer/data_pattern.h"
#include "harness/protocol/protocol_limits.h"

namespace mr::engine {
namespace {

using script::Command;

constexpr uint64_t kMaxCompare = uint64_t{1} << 28;  // bytes one expect_mem may compare

std::string hex(std::span<const uint8_t> b) { return protocol::to_hex(b); }

// The region pattern of QP `name` (tester or DUT), bytes [from, from + len).
std::optional<std::vector<uint8_t>> pattern_of(TestContext& ctx, const script::Position& pos,
                                               const std::string& name, uint64_t from,
                                               uint64_t len) {
  if (!ctx.qps.contains(name) && !ctx.tester_qps.contains(name)) {
    ctx.error(pos, "pattern: no QP named '" + name + "'");
    return std::nullopt;
  }
  auto all = peer::pattern_bytes(region_pattern_seed(ctx.seed, name), from + len);
  return std::vector<uint8_t>(all.begin() + static_cast<std::ptrdiff_t>(from), all.end());
}

// What an expect_mem line compares against: data=, or len= with pattern= [from=].
std::optional<std::vector<uint8_t>> wanted(const Command& c, TestContext& ctx, Args& a,
                                           uint64_t offset) {
  if (a.has("data") == a.has("pattern")) {
    ctx.error(c.pos, c.actor + " expect_mem needs data=b\"...\", or len=N pattern=QP [from=O]");
    return std::nullopt;
  }
  if (a.has("data")) return a.bytes("data");
  const uint64_t len = a.number("len", 0);
  const std::string name = a.name("pattern", "");
  const uint64_t from = a.number("from", offset);
  if (ctx.aborted) return std::nullopt;
  if (len == 0 || len > kMaxCompare) {
    ctx.error(a.pos("len"), c.actor + " expect_mem len: 1.." + std::to_string(kMaxCompare));
    return std::nullopt;
  }
  return pattern_of(ctx, a.pos("pattern"), name, from, len);
}

void compare(const Command& c, TestContext& ctx, Args& a, const char* side,
             const std::vector<uint8_t>& want, const std::vector<uint8_t>& got, uint64_t offset) {
  const auto d = first_difference(want, got);
  if (!d) return;
  ctx.fail(a.pos(a.has("data") ? "data" : "pattern"), "memory", d->expected, d->actual,
           std::string(side) + " memory differs " + d->summary(want.size()) + " (region offset " +
               std::to_string(offset + d->first) + ")");
}

// read_mem in the protocol's largest pieces.
std::optional<std::vector<uint8_t>> read_dut(TestContext& ctx, const script::Position& pos,
                                             const QpBinding& qp, uint64_t offset, uint64_t len) {
  std::vector<uint8_t> out;
  out.reserve(len);
  protocol::DutClient dut = dut_client(ctx);
  for (uint64_t done = 0; done < len;) {
    const uint64_t n = std::min(len - done, protocol::kMaxMemTransfer);
    // The client checks the reply: exactly n bytes of hex, or an error quoting it.
    auto bytes = checked(ctx, pos, dut.read_mem(qp.lkey, qp.va + offset + done, n));
    if (!bytes) return std::nullopt;
    out.insert(out.end(), bytes->begin(), bytes->end());
    done += n;
  }
  return out;
}

void write_dut(TestContext& ctx, const script::Position& pos, const QpBinding& qp, uint64_t offset,
               std::span<const uint8_t> data) {
  protocol::DutClient dut = dut_client(ctx);
  for (uint64_t done = 0; done < data.size() && !ctx.aborted;) {
    const uint64_t n = std::min<uint64_t>(data.size() - done, protocol::kMaxMemTransfer);
    checked(ctx, pos, dut.write_mem(qp.lkey, qp.va + offset + done, data.subspan(done, n)));
    done += n;
  }
}

}  // namespace

void dereg_dut_mem(const Command& c, TestContext& ctx) {
  QpBinding* qp = named_dut_qp(c, ctx);
  if (qp == nullptr || ctx.aborted) return;
  checked(ctx, c.pos, dut_client(ctx).dereg_mr(qp->lkey));
}

void write_dut_mem(const Command& c, TestContext& ctx) {
  Args a(c, ctx);
  QpBinding* qp = named_dut_qp(c, ctx);
  if (!qp || ctx.aborted) return;
  const auto data = a.bytes("data");
  const uint64_t offset = a.number("offset", 0);
  if (!ctx.aborted) write_dut(ctx, c.pos, *qp, offset, data);
}

void fill_dut_mem(const Command& c, TestContext& ctx) {
  Args a(c, ctx);
  QpBinding* qp = named_dut_qp(c, ctx);
  if (!qp || ctx.aborted) return;
  const uint64_t offset = a.number("offset", 0);
  const uint64_t len = a.number("len", qp->mr_length > offset ? qp->mr_length - offset : 0);
  if (ctx.aborted) return;
  if (offset + len > qp->mr_length)
    return ctx.error(c.pos, "dut fill_mem: the range ends past the region of " +
                                std::to_string(qp->mr_length) + " bytes");
  const std::string name = c.target.empty() ? ctx.current_qp : c.target;
  if (auto bytes = pattern_of(ctx, c.pos, name, offset, len))
    write_dut(ctx, c.pos, *qp, offset, *bytes);
}

void expect_dut_mem(const Command& c, TestContext& ctx) {
  Args a(c, ctx);
  QpBinding* qp = named_dut_qp(c, ctx);
  if (!qp || ctx.aborted) return;
  const uint64_t offset = a.number("offset", 0);
  auto want = wanted(c, ctx, a, offset);
  if (!want || ctx.aborted) return;
  auto got = read_dut(ctx, c.pos, *qp, offset, want->size());
  if (got) compare(c, ctx, a, "DUT", *want, *got, offset);
}

void expect_tester_mem(const Command& c, TestContext& ctx) {
  Args a(c, ctx);
  auto it = ctx.tester_qps.find(c.target);
  if (it == ctx.tester_qps.end() || it->second.dut_qp.empty())
    return ctx.error(c.pos, "tester expect_mem: no connected tester QP named '" + c.target + "'");
  const uint64_t offset = a.number("offset", 0);
  auto want = wanted(c, ctx, a, offset);
  if (!want || ctx.aborted) return;
  auto got = ctx.driven->peer()->read(it->second.qpn, offset, want->size());
  if (!got) return ctx.error(c.pos, "tester expect_mem: " + got.error());
  compare(c, ctx, a, "tester", *want, *got, offset);
}

}  // namespace mr::engine
