#include "harness/engine/memory_commands.h"

#include <algorithm>
#include <optional>

#include "harness/agent/protocol_limits.h"
#include "harness/engine/command_args.h"
#include "harness/engine/dut_commands.h"
#include "harness/engine/tester_commands.h"
#include "harness/peer/data_pattern.h"

namespace mr::engine {
namespace {

using nlohmann::json;
using script::Command;

constexpr uint64_t kMaxCompare = uint64_t{1} << 28;  // bytes one expect_mem may compare

std::string hex(std::span<const uint8_t> b) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s;
  s.reserve(b.size() * 2);
  for (uint8_t x : b) {
    s.push_back(kDigits[x >> 4]);
    s.push_back(kDigits[x & 15]);
  }
  return s;
}

std::optional<std::vector<uint8_t>> unhex(const std::string& s) {
  auto digit = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  if (s.size() % 2 != 0) return std::nullopt;
  std::vector<uint8_t> out(s.size() / 2);
  for (size_t i = 0; i < out.size(); ++i) {
    const int hi = digit(s[2 * i]);
    const int lo = digit(s[2 * i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out[i] = static_cast<uint8_t>(hi << 4 | lo);
  }
  return out;
}

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
  if (got == want) return;
  const size_t n = std::min(got.size(), want.size());
  size_t first = 0;
  while (first < n && got[first] == want[first]) ++first;
  size_t differing = std::max(got.size(), want.size()) - n;
  for (size_t i = first; i < n; ++i) differing += got[i] != want[i] ? 1 : 0;
  auto window = [first](const std::vector<uint8_t>& b) {
    const size_t from = std::min(first, b.size());
    return hex(std::span(b).subspan(from, std::min<size_t>(16, b.size() - from)));
  };
  ctx.fail(a.pos(a.has("data") ? "data" : "pattern"), "memory", window(want), window(got),
           std::string(side) + " memory differs from byte " + std::to_string(first) +
               " (region offset " + std::to_string(offset + first) +
               "): " + std::to_string(differing) + " of " + std::to_string(want.size()) +
               " bytes differ; 16 bytes from there shown");
}

// read_mem in the protocol's largest pieces.
std::optional<std::vector<uint8_t>> read_dut(TestContext& ctx, const script::Position& pos,
                                             const QpBinding& qp, uint64_t offset, uint64_t len) {
  std::vector<uint8_t> out;
  out.reserve(len);
  for (uint64_t done = 0; done < len;) {
    const uint64_t n = std::min(len - done, agent::kMaxMemTransfer);
    auto reply = control_request(
        ctx, pos,
        {{"op", "read_mem"}, {"lkey", qp.lkey}, {"va", qp.va + offset + done}, {"length", n}});
    if (!reply) return std::nullopt;
    auto bytes = reply->contains("data") && (*reply)["data"].is_string()
                     ? unhex((*reply)["data"].get<std::string>())
                     : std::nullopt;
    if (!bytes || bytes->size() != n) {
      ctx.error(pos, "DUT control: read_mem replied without " + std::to_string(n) +
                         " bytes of hex data: " + reply->dump().substr(0, 200));
      return std::nullopt;
    }
    out.insert(out.end(), bytes->begin(), bytes->end());
    done += n;
  }
  return out;
}

void write_dut(TestContext& ctx, const script::Position& pos, const QpBinding& qp, uint64_t offset,
               std::span<const uint8_t> data) {
  for (uint64_t done = 0; done < data.size() && !ctx.aborted;) {
    const uint64_t n = std::min<uint64_t>(data.size() - done, agent::kMaxMemTransfer);
    control_request(ctx, pos,
                    {{"op", "write_mem"},
                     {"lkey", qp.lkey},
                     {"va", qp.va + offset + done},
                     {"data", hex(data.subspan(done, n))}});
    done += n;
  }
}

}  // namespace

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
