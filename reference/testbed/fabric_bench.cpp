// `./metaroce bench fabric`: issue 22's scenarios on the simulated fabric, each run with
// Part II (SACK, out-of-order placement, multipath spraying, section 26's window) and with
// base RoCEv2 (go-back-N, DCQCN, no PFC) on the same fabric and seed, side by side as ratios
// to the ideal (the bytes at the hosts' rate), to what the fabric's capacity allows (/bound:
// lower where degraded links take capacity away) and to each other. Writes a table to stdout
// and the rows as JSON to argv[1].
//
// Virtual time: completion times are the simulated fabric's, independent of this machine;
// wall seconds and fabric events per wall second are the simulator's own cost.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "reference/testbed/capacity_bound.h"
#include "reference/testbed/goodput_timeline.h"
#include "reference/testbed/scenario_catalog.h"

namespace {

using mr::testbed::Scenario;
using mr::testbed::ScenarioOutcome;

// The plane-failure scenario's shape and how its recovery is read (PlaneFailureRecovery).
constexpr uint64_t kTimelineNs = 5'000;
constexpr uint32_t kPlanes = 8, kHosts = 16;
constexpr uint64_t kFailNs = 100'000;
constexpr double kPlaneFailureFull = (kHosts / 2.0) * kPlanes * 100e9;
constexpr double kPlaneFailureSurviving = (kHosts / 2.0) * (kPlanes - 1) * 100e9;
constexpr uint64_t kSteadyNs = 50'000;  // the span "before" is measured over

// A Part II plane-failure row's goodput before and after the failure, the time from the
// failure to the senders' last frame into the failed plane, and until the goodput (over 20
// us windows) came back to and stayed at 85% of the surviving planes' capacity: read from the
// row's timelines of acknowledged bytes and of the senders' frames into the failed plane.
struct PlaneFailureRecovery {
  double before_bps = 0, after_bps = 0;
  std::optional<uint64_t> to_85_ns, last_send_ns;  // from the failure
};

PlaneFailureRecovery recovery_of(const ScenarioOutcome& o) {
  const mr::testbed::GoodputTimeline t(o.timeline, kTimelineNs);
  PlaneFailureRecovery r;
  r.before_bps = t.rate_bps(kFailNs - kSteadyNs, kFailNs);
  // The steady state after the failure ends where the flows thin out: 90% of the bytes in.
  const uint64_t until = t.reached(o.needed_bytes * 9 / 10).value_or(t.end_ns());
  r.after_bps = t.rate_bps(kFailNs, until);
  if (auto at = t.recovered_at(kFailNs, until, 0.85 * kPlaneFailureSurviving))
    r.to_85_ns = *at - kFailNs;
  const auto last_send =
      mr::testbed::GoodputTimeline(o.failed_plane_timeline, kTimelineNs).last_growth();
  if (last_send && *last_send >= kFailNs) r.last_send_ns = *last_send - kFailNs;
  return r;
}

struct Row {
  std::string scenario, variant;
  ScenarioOutcome o;
  uint64_t ideal_ns = 0;
  uint64_t bound_ns = 0;    // what the fabric's capacity allows (capacity_bound_ns)
  double capacity_bps = 0;  // what the goodput is measured against, when it is
  bool read = false;
  std::optional<PlaneFailureRecovery> recovery;  // a failure with a timeline
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
  rows.push_back({scenario, variant, std::move(*o), ideal_ns, mr::testbed::capacity_bound_ns(s),
                  capacity_bps, s.opcode == mr::transport::SendOpcode::kRead});
  Row& r = rows.back();
  if (r.o.failed_plane && !r.o.timeline.empty()) r.recovery = recovery_of(r.o);
  // The last completion over a reference time, when every flow completed.
  const auto ratio_to = [&](uint64_t reference_ns) {
    return r.o.completed == r.o.flows.size() && reference_ns > 0
               ? static_cast<double>(r.o.last_finish_ns) / static_cast<double>(reference_ns)
               : 0.0;
  };
  const double goodput = r.o.last_finish_ns > 0 ? static_cast<double>(r.o.delivered_bytes) * 8e9 /
                                                      static_cast<double>(r.o.last_finish_ns)
                                                : 0;
  std::printf(
      "%-22s %-20s %4u/%-4zu %3u %10.1f %10.1f %7.2f %7.2f %9.1f %9lu %8lu %7lu %6.2f %8.2f\n",
      scenario.c_str(), variant.c_str(), r.o.completed, r.o.flows.size(), r.o.failed,
      static_cast<double>(r.o.last_finish_ns) / 1e3,
      static_cast<double>(r.o.percentile_finish_ns(99)) / 1e3, ratio_to(ideal_ns),
      ratio_to(r.bound_ns), goodput / 1e9, r.o.retransmitted(), r.o.fabric_drops, r.o.fabric_trims,
      r.o.wall_seconds,
      r.o.wall_seconds > 0 ? static_cast<double>(r.o.fabric_events) / r.o.wall_seconds / 1e6 : 0.0);
  std::fflush(stdout);
  if (r.o.data_mismatches > 0) {
    std::fprintf(stderr, "bench fabric: %s %s: %u flows placed wrong bytes\n", scenario.c_str(),
                 variant.c_str(), r.o.data_mismatches);
    std::exit(1);
  }
  return r.o;
}

// The recovery of every row that has one, in microseconds and base RTTs.
void print_recovery() {
  std::printf("\n%-22s %-22s %9s %9s %9s %9s %14s %14s\n", "plane failure at us", "variant",
              "before", "/full", "after", "/surv.", "to 85% us", "last send us");
  for (const Row& r : rows) {
    if (!r.recovery) continue;
    const PlaneFailureRecovery& v = *r.recovery;
    const double rtt = static_cast<double>(std::max<uint64_t>(r.o.min_rtt_ns, 1));
    auto span = [&](const std::optional<uint64_t>& ns) {
      if (!ns) return std::string("never");
      char b[48];
      std::snprintf(b, sizeof b, "%.0f (%.1f RTT)", static_cast<double>(*ns) / 1e3,
                    static_cast<double>(*ns) / rtt);
      return std::string(b);
    };
    std::printf("%-22.0f %-22s %9.1f %9.2f %9.1f %9.2f %14s %14s\n",
                static_cast<double>(kFailNs) / 1e3, r.variant.c_str(), v.before_bps / 1e9,
                v.before_bps / kPlaneFailureFull, v.after_bps / 1e9,
                v.after_bps / kPlaneFailureSurviving, span(v.to_85_ns).c_str(),
                span(v.last_send_ns).c_str());
  }
  std::printf(
      "(Gb/s; 'after': from the failure until 90%% of the bytes are in; 'last send': the\n"
      " senders' last frame into the failed plane; RTT: the smallest the senders measured)\n\n");
}

// Part II, then base RoCEv2 with verbs' usual timeout (14: 67 ms) and with a short one (8:
// 1 ms), so that what go-back-N costs is not only its timer's length.
void ext_and_base(const std::string& name, Scenario s, uint64_t ideal, double capacity = 0) {
  run(name, "Part II", s, ideal, capacity);
  s.mxcap.reset();
  s.timeline_ns = 0;  // base RoCEv2 acknowledges per message: too coarse a timeline
  run(name, "base RoCEv2", s, ideal, capacity);
  s.connection.timeout = 8;
  run(name, "base RoCEv2, 1 ms", s, ideal, capacity);
}

int run_all(int argc, char** argv) {
  using namespace mr::testbed;  // NOLINT(google-build-using-namespace): the bench's own names
  std::printf("%-22s %-20s %9s %3s %10s %10s %7s %7s %9s %9s %8s %7s %6s %8s\n", "scenario",
              "variant", "done", "err", "last us", "p99 us", "/ideal", "/bound", "Gb/s", "retx",
              "drops", "trims", "wall s", "Mev/s");
  constexpr uint64_t kMiB = 1 << 20;
  // 8 planes, 16 hosts, 32 MiB each across the spines; one plane silently black-holed at
  // 100 us (a steady state before and after). Part II as the spec's defaults set it
  // (oblivious spraying over N_EV_DEFAULT = 16 entries, two per plane), and with adaptive
  // selection over 64 entries (eight per plane, so a plane's two spines see the same load);
  // the timeline gives goodput before and after the failure and the recovery time.
  {
    const uint64_t bytes = 32 * kMiB;
    for (const bool failure : {false, true}) {
      const std::string name = failure ? "plane-failure" : "plane-failure-none";
      Scenario s = plane_failure({.planes = kPlanes,
                                  .hosts = kHosts,
                                  .bytes = bytes,
                                  .fail_at_ns = failure ? std::optional(kFailNs) : std::nullopt});
      s.timeline_ns = kTimelineNs;
      const uint64_t ideal = ideal_ns(bytes, (failure ? kPlanes - 1 : kPlanes) * 100e9);
      const double capacity = failure ? kPlaneFailureSurviving : kPlaneFailureFull;
      Scenario adaptive = s;
      adaptive.mxcap->features = adaptive.mxcap->features | mr::wire::kMxcapAdaptive;
      adaptive.ext.ev_set_size = 8 * kPlanes;
      run(name, "Part II adapt., 64 EVs", adaptive, ideal, capacity);
      ext_and_base(name, s, ideal, capacity);
    }
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
    // 16 EVs on 8 spines: ECMP gives some spines 4 of a flow's entries and others none, and
    // the fuller leaf uplinks drop. 256 spread every flow evenly.
    Scenario many = s;
    many.ext.ev_set_size = 256;
    run("permutation-128", "Part II, 256 EVs", many, ideal);
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

  print_recovery();

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
                   {"capacity_bound_ns", r.bound_ns},
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
                   {"min_rtt_ns", r.o.min_rtt_ns},
                   {"fabric_events", r.o.fabric_events},
                   {"steps", r.o.steps},
                   {"wall_seconds", r.o.wall_seconds}});
    if (r.recovery) {
      const auto ns = [](const std::optional<uint64_t>& v) {
        return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
      };
      nlohmann::json& j = out.back();
      j["timeline_ns"] = kTimelineNs;
      j["timeline_acknowledged_bytes"] = r.o.timeline;
      j["timeline_frames_into_failed_plane"] = r.o.failed_plane_timeline;
      j["goodput_before_bps"] = r.recovery->before_bps;
      j["goodput_after_bps"] = r.recovery->after_bps;
      j["recovery_85_ns"] = ns(r.recovery->to_85_ns);
      j["last_send_into_failed_ns"] = ns(r.recovery->last_send_ns);
    }
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
