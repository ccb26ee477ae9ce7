#include "harness/engine/bottleneck_commands.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "harness/engine/command_args.h"
#include "harness/engine/dut_commands.h"
#include "harness/engine/ladder_note.h"

namespace mr::engine {
namespace {

std::string gbps(double bits_per_s) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f Gbit/s", bits_per_s / 1e9);
  return text;
}

std::string ms_text(uint64_t ns) {
  char text[32];
  std::snprintf(text, sizeof text, "+%.3f ms", static_cast<double>(ns) / 1e6);
  return text;
}

// The script's name of the DUT QP whose stream goes to tester QPN `dqpn`.
std::string stream_name(const TestContext& ctx, uint32_t dqpn) {
  for (const auto& [name, b] : ctx.qps) {
    if (b.connection.tester_qpn == dqpn) return name;
  }
  return "QP to 0x" + [&] {
    char text[16];
    std::snprintf(text, sizeof text, "%06x", dqpn);
    return std::string(text);
  }();
}

void start(const script::Command& c, TestContext& ctx) {
  Args a(c, ctx);
  BottleneckQueue::Config config{.rate_mbps = a.number("rate_mbps", 0),
                                 .ecn_k_bytes = a.number("ecn_k", 0),
                                 .delay_ns = a.number("delay_us", 0) * 1000};
  std::optional<uint8_t> plane;
  if (a.has("plane")) plane = static_cast<uint8_t>(a.number("plane", 0));
  if (ctx.aborted) return;
  if (config.rate_mbps == 0) return ctx.error(a.pos("rate_mbps"), "bottleneck on: rate_mbps=0");
  if (auto ok = ctx.bottleneck->serve(plane, config); !ok)
    return ctx.error(c.pos, "bottleneck on: " + ok.error());
  note_in_ladder(ctx, c,
                 "bottleneck" + (plane ? " of plane " + std::to_string(*plane) : std::string()) +
                     ": " + std::to_string(config.rate_mbps) + " Mbit/s, CE above " +
                     std::to_string(config.ecn_k_bytes) + " bytes queued, +" +
                     std::to_string(config.delay_ns / 1000) + " us");
}

// Lets the exchange run (the tester's QPs take the DUT's streams) until `t_ns`.
void run_until(TestContext& ctx, uint64_t t_ns) {
  if (ctx.port.now_ns() < t_ns) ctx.port.wait_until(t_ns);
  ctx.last_event_ns = ctx.port.now_ns();
}

// Section 26.4's measurement windows: `count` of T_SC_FAIR_WINDOW, the first starting
// T_SC_CONVERGE after the last stream started.
struct Windows {
  uint64_t first_ns = 0;
  uint64_t width_ns = 0;
  uint64_t count = 0;
  uint64_t end_ns() const { return first_ns + width_ns * count; }
};

// The streams and their bytes per window, once the windows have passed; nullopt after an
// error or failure was reported.
struct Shares {
  Windows windows;
  std::vector<uint32_t> streams;             // tester QPNs, in start order
  std::vector<std::vector<uint64_t>> bytes;  // [window][stream]
  double rate_bps = 0;
};

std::optional<Shares> measure(const script::Command& c, TestContext& ctx) {
  Args a(c, ctx);
  const uint64_t count = a.number("windows", 4);
  if (ctx.aborted) return std::nullopt;
  const BottleneckQueue* q = ctx.bottleneck->queue(std::nullopt);
  if (q == nullptr) {
    ctx.error(c.pos, "bottleneck " + c.name + ": no bottleneck for every frame is on");
    return std::nullopt;
  }
  if (count == 0 || count > 1000) {
    ctx.error(a.pos("windows"), "bottleneck " + c.name + ": windows is 1 to 1000");
    return std::nullopt;
  }
  const auto ns_from_us = [&](const char* name, double fallback) {
    return static_cast<uint64_t>(std::max(ctx.pixit.parameter(name, fallback), 0.0) * 1000);
  };
  const auto flows = static_cast<size_t>(ctx.pixit.parameter("N_SC_FAIR_FLOWS", 4));
  // The last stream's first frame may still be on its way to the bottleneck.
  if (ctx.bottleneck->stream_starts().size() < flows)
    run_until(ctx, ctx.port.now_ns() +
                       std::max<uint64_t>(ns_from_us("T_SC_FAIR_STAGGER", 1000), 100'000));
  const auto& starts = ctx.bottleneck->stream_starts();
  Shares s;
  s.rate_bps = static_cast<double>(q->config().rate_mbps) * 1e6;
  for (const auto& [dqpn, t] : starts) s.streams.push_back(dqpn);
  std::ranges::sort(s.streams, {}, [&](uint32_t d) { return starts.at(d); });
  if (s.streams.size() != flows) {
    ctx.fail(c.pos, "streams", std::to_string(flows) + " (N_SC_FAIR_FLOWS)",
             std::to_string(s.streams.size()),
             "section 26.4 runs N_SC_FAIR_FLOWS streams through the bottleneck: this many sent "
             "payload through it by now");
    return std::nullopt;
  }
  uint64_t last_start = 0;
  for (uint32_t d : s.streams) last_start = std::max(last_start, starts.at(d));
  s.windows = {.first_ns = last_start + ns_from_us("T_SC_CONVERGE", 20000),
               .width_ns = std::max<uint64_t>(ns_from_us("T_SC_FAIR_WINDOW", 2000), 1),
               .count = count};
  // A frame reaches the tester by the end of the last window only if it left the queue by
  // then: run a little past it so every such frame has been taken.
  run_until(ctx, s.windows.end_ns() + 1000);
  if (ctx.aborted) return std::nullopt;
  note_in_ladder(ctx, c,
                 "bottleneck: " + std::to_string(q->marked()) + " frames marked CE, at most " +
                     std::to_string(q->peak_queued_bytes()) + " bytes queued behind one leaving");
  s.bytes.assign(count, std::vector<uint64_t>(s.streams.size(), 0));
  for (const auto& d : ctx.bottleneck->deliveries()) {
    if (d.t_ns < s.windows.first_ns || d.t_ns >= s.windows.end_ns()) continue;
    const uint64_t w = (d.t_ns - s.windows.first_ns) / s.windows.width_ns;
    auto it = std::ranges::find(s.streams, d.dqpn);
    if (it != s.streams.end()) s.bytes[w][static_cast<size_t>(it - s.streams.begin())] += d.bytes;
  }
  return s;
}

double rate_of(uint64_t bytes, uint64_t ns) {
  return static_cast<double>(bytes) * 8e9 / static_cast<double>(std::max<uint64_t>(ns, 1));
}

// The ladder's line for window w: each stream's rate and the total.
std::string window_line(const TestContext& ctx, const Shares& s, size_t w) {
  std::string line = "window " + std::to_string(w + 1) + " (" +
                     ms_text(s.windows.first_ns + w * s.windows.width_ns - ctx.t0_ns) + "):";
  uint64_t total = 0;
  for (size_t i = 0; i < s.streams.size(); ++i) {
    line += " " + stream_name(ctx, s.streams[i]) + " " +
            gbps(rate_of(s.bytes[w][i], s.windows.width_ns));
    total += s.bytes[w][i];
  }
  const double all = rate_of(total, s.windows.width_ns);
  char share[32];
  std::snprintf(share, sizeof share, " (%.1f%%)", 100.0 * all / s.rate_bps);
  return line + ", total " + gbps(all) + share;
}

void expect_fair_share(const script::Command& c, TestContext& ctx) {
  auto s = measure(c, ctx);
  if (!s) return;
  const double tolerance = std::clamp(ctx.pixit.parameter("R_SC_FAIR_TOLERANCE", 0.25), 0.0, 1.0);
  const double fair = s->rate_bps / static_cast<double>(s->streams.size());
  size_t outside = 0;
  std::optional<std::pair<size_t, size_t>> first;
  for (size_t w = 0; w < s->bytes.size(); ++w) {
    note_in_ladder(ctx, c, window_line(ctx, *s, w));
    for (size_t i = 0; i < s->streams.size(); ++i) {
      const double got = rate_of(s->bytes[w][i], s->windows.width_ns);
      if (got >= fair * (1 - tolerance) && got <= fair * (1 + tolerance)) continue;
      ++outside;
      if (!first) first = {w, i};
    }
  }
  if (!first) return;
  const auto [w, i] = *first;
  char want[64];
  std::snprintf(want, sizeof want, "%s +/- %.0f%% (R_SC_TEST_RATE / %zu)", gbps(fair).c_str(),
                tolerance * 100, s->streams.size());
  ctx.fail(c.pos, stream_name(ctx, s->streams[i]), want,
           gbps(rate_of(s->bytes[w][i], s->windows.width_ns)),
           "MR-SC-21: a stream's goodput in window " + std::to_string(w + 1) + " (" +
               ms_text(s->windows.first_ns + w * s->windows.width_ns - ctx.t0_ns) +
               ") is outside its fair share of the bottleneck (" + std::to_string(outside) +
               " of " + std::to_string(s->bytes.size() * s->streams.size()) +
               " window shares are; the ladder lists them)");
}

void expect_utilisation(const script::Command& c, TestContext& ctx) {
  auto s = measure(c, ctx);
  if (!s) return;
  const double least =
      std::clamp(ctx.pixit.parameter("R_SC_UTIL_MIN", 0.8), 0.0, 1.0) * s->rate_bps;
  for (size_t w = 0; w < s->bytes.size(); ++w) {
    uint64_t total = 0;
    for (uint64_t b : s->bytes[w]) total += b;
    const double got = rate_of(total, s->windows.width_ns);
    if (got >= least) continue;
    note_in_ladder(ctx, c, window_line(ctx, *s, w));
    return ctx.fail(c.pos, "goodput",
                    "at least " + gbps(least) + " (R_SC_UTIL_MIN x R_SC_TEST_RATE)", gbps(got),
                    "MR-SC-22: the streams' total goodput in window " + std::to_string(w + 1) +
                        " (" + ms_text(s->windows.first_ns + w * s->windows.width_ns - ctx.t0_ns) +
                        ") leaves the bottleneck underused");
  }
}

void expect_goodput(const script::Command& c, TestContext& ctx) {
  Args a(c, ctx);
  QpBinding* qp = named_dut_qp(c, ctx);
  const uint64_t capacity_mbps = a.number("capacity_mbps", 0);
  if (qp == nullptr || ctx.aborted) return;
  if (capacity_mbps == 0)
    return ctx.error(a.pos("capacity_mbps"), "bottleneck expect_goodput: capacity_mbps=0");
  if (!ctx.bottleneck->active())
    return ctx.error(c.pos, "bottleneck expect_goodput: no bottleneck is on");
  const uint32_t dqpn = qp->connection.tester_qpn;
  std::optional<uint64_t> first;
  uint64_t last = 0;
  uint64_t bytes = 0;  // after the first frame: the span from its arrival carries the rest
  for (const auto& d : ctx.bottleneck->deliveries()) {
    if (d.dqpn != dqpn) continue;
    if (first) bytes += d.bytes;
    if (!first) first = d.t_ns;
    last = d.t_ns;
  }
  if (!first || last == *first)
    return ctx.fail(c.pos, "goodput", "a transfer through the bottleneck", "none",
                    "MR-PF-06: QP " + c.target + " delivered no stream through the bottleneck");
  const double ratio = std::clamp(ctx.pixit.parameter("R_PF_GOODPUT_MIN", 0.8), 0.0, 1.0);
  const double least = ratio * static_cast<double>(capacity_mbps) * 1e6;
  const double got = rate_of(bytes, last - *first);
  note_in_ladder(ctx, c,
                 "goodput of " + c.target + ": " + gbps(got) + " over " +
                     ms_text(last - *first).substr(1) + " (" + std::to_string(bytes) +
                     " bytes), at least " + gbps(least) + " asked");
  if (got >= least) return;
  ctx.fail(a.pos("capacity_mbps"), "goodput",
           "at least " + gbps(least) + " (R_PF_GOODPUT_MIN x capacity_mbps)", gbps(got),
           "MR-PF-06: the QP's goodput over the transfer falls short of what the planes left "
           "carry");
}

}  // namespace

void run_bottleneck_command(const script::Command& c, TestContext& ctx) {
  if (ctx.bottleneck == nullptr) return ctx.error(c.pos, "this engine runs no bottleneck");
  if (c.name == "on") return start(c, ctx);
  if (c.name == "expect_fair_share") return expect_fair_share(c, ctx);
  if (c.name == "expect_utilisation") return expect_utilisation(c, ctx);
  if (c.name == "expect_goodput") return expect_goodput(c, ctx);
  ctx.error(c.pos, "'bottleneck " + c.name + "' is not a command of the language");
}

}  // namespace mr::engine
