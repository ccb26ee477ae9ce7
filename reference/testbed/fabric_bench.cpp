// `./metaroce bench fabric`: issue 22's scenarios on the simulated fabric, each run with
// Part II (SACK, out-of-order placement, multipath spraying, section 26's window) and with
// base RoCEv2 (go-back-N, DCQCN, no PFC) on the same fabric and seed, side by side as ratios
// to the ideal and to each other. Writes a table to stdout and the rows as JSON to argv[1].
//
// Virtual time: completion times are the simulated fabric's, independent of this machine;
// wall seconds and fabric events per wall second are the simulator's own cost.
#include <cstdio>
#include <exception>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "reference/testbed/scenario_catalog.h"

namespace {

using mr::testbed::Scenario;
using mr::testbed::ScenarioOutcome;

struct Row {
  std::string scenario, variant;
  ScenarioOutcome o;
  uint64_t ideal_ns = 0;
  double capacity_bps = 0;  // what the goodput is measured against, when it is
  bool read = false;
};

std::vector<Row> rows;

const ScenarioOutcome& run(const std::string& scenario, const std::string& variant,
                           const Scenario& s, uint64_t ideal_ns, double capacity_bps = 0) {
  auto o = mr::testbed::run_scenario(s);
  if (!o) {
    std::fprintf(stderr, "bench fabric: %s %s: %s\n", scenario.c_str(), variant.c_str(),
                 o.error().c_str());
    std::exit(2);
  }
  rows.push_back({scenario, variant, std::move(*o), ideal_ns, capacity_bps,
                  s.opcode == mr::transport::SendOpcode::kRead});
  const Row& r = rows.back();
  const double goodput = r.o.last_finish_ns > 0 ? static_cast<double>(r.o.delivered_bytes) * 8e9 /
                                                      static_cast<double>(r.o.last_finish_ns)
                                                : 0;
  std::printf(
      "%-22s %-20s %4u/%-4zu %3u %10.1f %10.1f %7.2f %9.1f %9lu %8lu %7lu %6.2f %8.2f\n",
      scenario.c_str(), variant.c_str(), r.o.completed, r.o.flows.size(), r.o.failed,
      static_cast<double>(r.o.last_finish_ns) / 1e3,
      static_cast<double>(r.o.percentile_finish_ns(99)) / 1e3,
      r.o.completed == r.o.flows.size() && ideal_ns > 0
          ? static_cast<double>(r.o.last_finish_ns) / static_cast<double>(ideal_ns)
          : 0.0,
      goodput / 1e9, r.o.retransmitted(), r.o.fabric_drops, r.o.fabric_trims, r.o.wall_seconds,
      r.o.wall_seconds > 0 ? static_cast<double>(r.o.fabric_events) / r.o.wall_seconds / 1e6 : 0.0);
  std::fflush(stdout);
  if (r.o.data_mismatches > 0) {
    std::fprintf(stderr, "bench fabric: %s %s: %u flows placed wrong bytes\n", scenario.c_str(),
                 variant.c_str(), r.o.data_mismatches);
    std::exit(1);
  }
  return r.o;
}

// Part II, then base RoCEv2 with verbs' usual timeout (14: 67 ms) and with a short one (8:
// 1 ms), so that what go-back-N costs is not only its timer's length.
void ext_and_base(const std::string& name, Scenario s, uint64_t ideal, double capacity = 0) {
  run(name, "Part II", s, ideal, capacity);
  s.mxcap.reset();
  run(name, "base RoCEv2", s, ideal, capacity);
  s.connection.timeout = 8;
  run(name, "base RoCEv2, 1 ms", s, ideal, capacity);
}

int run_all(int argc, char** argv) {
  using namespace mr::testbed;  // NOLINT(google-build-using-namespace): the bench's own names
  std::printf("%-22s %-20s %9s %3s %10s %10s %7s %9s %9s %8s %7s %6s %8s\n", "scenario", "variant",
              "done", "err", "last us", "p99 us", "/ideal", "Gb/s", "retx", "drops", "trims",
              "wall s", "Mev/s");
  constexpr uint64_t kMiB = 1 << 20;
  // 8 planes, 16 hosts, 8 MiB each across the spines; one plane silently black-holed at 40 us.
  {
    const uint32_t planes = 8, hosts = 16;
    const uint64_t bytes = 8 * kMiB;
    const uint64_t ideal = ideal_ns(bytes, planes * 100e9);
    const double surviving = (hosts / 2.0) * (planes - 1) * 100e9;
    ext_and_base("plane-failure-none",
                 plane_failure({.planes = planes, .hosts = hosts, .bytes = bytes}), ideal,
                 (hosts / 2.0) * planes * 100e9);
    ext_and_base(
        "plane-failure",
        plane_failure({.planes = planes, .hosts = hosts, .bytes = bytes, .fail_at_ns = 40'000}),
        ideal_ns(bytes, (planes - 1) * 100e9), surviving);
  }
  // Incast: every sender 2 MiB into one receiver's 100 Gb/s link; Part II also with
  // trimming switches (section 23) and with receiver credits (section 26.7).
  for (uint32_t senders : {16u, 128u}) {
    const std::string name = "incast-" + std::to_string(senders) + "-to-1";
    const uint64_t ideal = ideal_ns(senders * 2 * kMiB, 100e9);
    run(name, "Part II, credits", with_credits(incast(senders, 2 * kMiB)), ideal);
    run(name, "Part II, trimming", with_trimming(incast(senders, 2 * kMiB)), ideal);
    ext_and_base(name, incast(senders, 2 * kMiB), ideal);
  }
  // Permutation of 128 hosts, 2 MiB each, sprayed against one path; then 8 spine links at 10%.
  {
    const uint64_t ideal = ideal_ns(2 * kMiB, 100e9);
    Scenario s = permutation(128, 2 * kMiB);
    run("permutation-128", "Part II sprayed", s, ideal);
    Scenario single = s;
    single.mxcap->features = mr::wire::kMxcapSack | mr::wire::kMxcapOoo | mr::wire::kMxcapCc;
    run("permutation-128", "Part II one path", single, ideal);
    s.mxcap.reset();
    run("permutation-128", "base RoCEv2", s, ideal);
    s.connection.timeout = 8;
    run("permutation-128", "base RoCEv2, 1 ms", s, ideal);
    Scenario d = permutation(128, 2 * kMiB, /*degraded_spine_links=*/8);
    d.mxcap->features = d.mxcap->features | mr::wire::kMxcapAdaptive;
    run("permutation-degraded", "Part II adaptive", d, ideal);
    d.mxcap->features = d.mxcap->features & ~mr::wire::kMxcapAdaptive;
    run("permutation-degraded", "Part II oblivious", d, ideal);
    d.mxcap->features = d.mxcap->features | mr::wire::kMxcapAdaptive;
    run("permutation-degraded", "Part II adapt., trim", with_trimming(d), ideal);
    d.mxcap->features = d.mxcap->features & ~mr::wire::kMxcapAdaptive;
    d.mxcap.reset();
    run("permutation-degraded", "base RoCEv2", d, ideal);
    d.connection.timeout = 8;
    run("permutation-degraded", "base RoCEv2, 1 ms", d, ideal);
  }
  // Random loss on every link, one 16 MiB flow.
  for (double p : {0.001, 0.01, 0.05}) {
    char name[32];
    std::snprintf(name, sizeof name, "loss-%g%%", p * 100);
    ext_and_base(name, random_loss(p, 16 * kMiB), ideal_ns(16 * kMiB, 100e9));
  }

  // RDMA READ: the responder sprays the responses, the requester reissues from the first
  // missing one (section 21.3). "Retransmitted" counts requests only here.
  for (double p : {0.01, 0.05}) {
    char name[32];
    std::snprintf(name, sizeof name, "READ, loss-%g%%", p * 100);
    Scenario s = random_loss(p, 16 * kMiB);
    s.opcode = mr::transport::SendOpcode::kRead;
    ext_and_base(name, s, ideal_ns(16 * kMiB, 100e9));
  }
  {
    Scenario s = incast(16, 2 * kMiB);
    s.opcode = mr::transport::SendOpcode::kRead;
    ext_and_base("READ, 16 readers of 1", s, ideal_ns(16 * 2 * kMiB, 100e9));
  }

  nlohmann::json out = nlohmann::json::array();
  for (const Row& r : rows) {
    out.push_back({{"scenario", r.scenario},
                   {"variant", r.variant},
                   {"opcode", r.read ? "READ" : "WRITE"},
                   {"flows", r.o.flows.size()},
                   {"completed", r.o.completed},
                   {"failed", r.o.failed},
                   {"last_finish_ns", r.o.last_finish_ns},
                   {"p99_finish_ns", r.o.percentile_finish_ns(99)},
                   {"ideal_ns", r.ideal_ns},
                   {"delivered_bytes", r.o.delivered_bytes},
                   {"capacity_bps", r.capacity_bps},
                   {"request_frames", r.o.request_frames},
                   {"needed_frames", r.o.needed_frames},
                   {"fabric_drops", r.o.fabric_drops},
                   {"overflow_drops", r.o.overflow_drops},
                   {"fabric_trims", r.o.fabric_trims},
                   {"trim_naks", r.o.trim_naks},
                   {"credit_raises", r.o.credit_raises},
                   {"credit_packets", r.o.credit_packets},
                   {"ev_assumed_bad", r.o.ev_assumed_bad},
                   {"fabric_events", r.o.fabric_events},
                   {"steps", r.o.steps},
                   {"wall_seconds", r.o.wall_seconds}});
  }
  if (argc > 1) {
    std::ofstream f(argv[1]);
    f << out.dump(2) << "\n";
    if (!f) {
      std::fprintf(stderr, "bench fabric: cannot write %s\n", argv[1]);
      return 2;
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run_all(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench fabric: %s\n", e.what());
    return 2;
  }
}
