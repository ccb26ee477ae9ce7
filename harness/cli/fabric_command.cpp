#include "harness/cli/fabric_command.h"

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "harness/cli/fabric_flags.h"
#include "reference/io/fabric/fabric_counters.h"
#include "reference/io/fabric/fabric_namespaces.h"
#include "reference/io/fabric/real_time_fabric.h"
#include "reference/io/pcap_link.h"

namespace mr::cli {
namespace {

std::atomic<bool> g_stop{false};

// C linkage, so a name of its own: the agent's handler is `on_signal`.
extern "C" void on_fabric_signal(int /*signal*/) { g_stop.store(true); }

constexpr int64_t kMaxDurationS = int64_t{365} * 24 * 3600;  // a year

struct FabricCommandOptions {
  FabricFlags flags;
  std::optional<uint64_t> seed;
  double duration_s = 0;  // 0: until a signal
  double poll_us = 20;
};

void log(const std::string& message) {
  std::fprintf(stderr, "metaroce fabric: %s\n", message.c_str());
  std::fflush(stderr);
}

std::string plane_summary(const io::fabric::Fabric& fabric, uint32_t plane) {
  const io::fabric::LinkCounters c = fabric.plane_counters(plane);
  std::string s = "plane " + std::to_string(plane) + ": " + std::to_string(c.frames_sent) +
                  " frames sent on its cables, " + std::to_string(c.ecn_marked) + " marked CE, " +
                  std::to_string(c.trimmed) + " trimmed, dropped";
  for (size_t i = 0; i < io::fabric::kDropCauseCount; ++i) {
    const auto cause = static_cast<io::fabric::DropCause>(i);
    s += (i == 0 ? " " : ", ") + std::string(io::fabric::drop_cause_name(cause)) + " " +
         std::to_string(c.dropped(cause));
  }
  return s;
}

// How ECMP spread a leaf-spine plane's traffic: the frames each spine's cables carried, both
// directions, all leaves.
std::string spine_summary(const io::fabric::Fabric& fabric, const io::fabric::PlaneTopology& plane,
                          uint32_t p) {
  std::string s = "plane " + std::to_string(p) + " spines:";
  for (uint32_t spine = 0; spine < plane.spines; ++spine) {
    uint64_t frames = 0;
    for (uint32_t leaf = 0; leaf < plane.leaves; ++leaf) {
      const io::fabric::CableRef cable{
          .plane = p, .tier = io::fabric::CableTier::kSpine, .a = leaf, .b = spine};
      for (auto d : {io::fabric::LinkDirection::kUp, io::fabric::LinkDirection::kDown})
        frames += fabric.counters(cable, d).frames_sent;
    }
    s += (spine == 0 ? " " : ", ") + std::to_string(spine) + ": " + std::to_string(frames);
  }
  return s + " frames (each counted up and down)";
}

int run_fabric(FabricCommandOptions o) {
  o.flags.seed = o.seed.value_or(std::random_device{}());
  auto config = fabric_config_from(o.flags);
  if (!config) {
    log(config.error());
    return kExitHarnessError;
  }
  // At least a nanosecond: a wait of 0 would spin the fabric's thread.
  if (!(o.poll_us >= 0.001) || o.poll_us > 1'000'000) {
    log("--poll-us: must be between 0.001 and 1000000 (1 s)");
    return kExitHarnessError;
  }
  if (!(o.duration_s >= 0) || o.duration_s > kMaxDurationS) {
    log("--duration-s: must be between 0 and " + std::to_string(kMaxDurationS) + " (a year)");
    return kExitHarnessError;
  }
  // links[plane][endpoint], as RealTimeFabric takes them.
  const auto interfaces = endpoint_interfaces(o.flags);
  std::vector<std::vector<io::PcapLink>> links(config->planes.size());
  for (size_t p = 0; p < config->planes.size(); ++p) {
    for (const auto& ports : interfaces) {
      auto link = io::PcapLink::open(ports[p], io::fabric::fabric_port_link_options());
      if (!link) {
        log("--endpoint " + ports[p] + ": " + link.error());
        return kExitHarnessError;
      }
      links[p].push_back(std::move(*link));
    }
  }
  auto fabric = io::fabric::RealTimeFabric::start(
      *config, links, {.poll_ns = static_cast<uint64_t>(o.poll_us * 1000)});
  if (!fabric) {
    log(fabric.error());
    return kExitHarnessError;
  }
  std::signal(SIGINT, on_fabric_signal);
  std::signal(SIGTERM, on_fabric_signal);
  const auto& plane = config->planes.front();
  log(std::to_string(config->endpoints) + " endpoints, " + std::to_string(config->planes.size()) +
      " plane(s) of " +
      (plane.single_switch() ? std::string("one switch")
                             : std::to_string(plane.leaves) + " leaves and " +
                                   std::to_string(plane.spines) + " spines") +
      ", seed " + std::to_string(config->seed) + "; running until " +
      (o.duration_s > 0 ? std::to_string(o.duration_s) + " s have passed or " : "") +
      "SIGINT or SIGTERM");
  const auto until = std::chrono::steady_clock::now() +
                     std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                         std::chrono::duration<double>(o.duration_s));
  // A bounded wait: the signal handler only sets the flag, looked at every 50 ms.
  while (!g_stop.load() && (o.duration_s == 0 || std::chrono::steady_clock::now() < until)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  (*fabric)->stop();
  log("stopped: " + std::to_string((*fabric)->frames_in()) + " frames in, " +
      std::to_string((*fabric)->frames_out()) + " out, " +
      std::to_string((*fabric)->frames_refused()) + " refused at a full port ring");
  for (uint32_t p = 0; p < config->planes.size(); ++p) {
    log(plane_summary((*fabric)->fabric(), p));
    if (!config->planes[p].single_switch())
      log(spine_summary((*fabric)->fabric(), config->planes[p], p));
  }
  return kExitOk;
}

}  // namespace

Runner setup_fabric(CLI::App& app) {
  auto o = std::make_shared<FabricCommandOptions>();
  app.add_option("--endpoint", o->flags.endpoints,
                 "a host the fabric joins: its ports' interfaces here, one per plane, "
                 "comma-separated (repeat: endpoint e is 198.18.0.<e+1>, fd00::<e+1>, "
                 "02:00:00:00:00:<e+1> on every plane)")
      ->required();
  app.add_option("--leaves", o->flags.leaves, "leaves per plane (0: one switch)")
      ->capture_default_str();
  app.add_option("--spines", o->flags.spines, "spines per plane (ECMP spreads over them)")
      ->capture_default_str();
  app.add_option("--rate-gbps", o->flags.rate_gbps, "every cable's rate")->capture_default_str();
  app.add_option("--delay-us", o->flags.delay_us, "every cable's propagation delay")
      ->capture_default_str();
  app.add_option("--queue-kib", o->flags.queue_kib, "every egress queue's buffer")
      ->capture_default_str();
  app.add_flag("--ecn", o->flags.ecn, "RED ECN marking on every egress queue");
  app.add_flag("--trim", o->flags.trim, "trim what would overflow a queue (spec section 23)");
  app.add_option("--loss", o->flags.loss_percent, "seeded random loss on every cable, percent")
      ->capture_default_str();
  app.add_option("--ipv6-ecmp", o->flags.ipv6_ecmp,
                 "what picks an IPv6 frame's path: flow (label) or ports")
      ->capture_default_str();
  app.add_option("--seed", o->seed, "ECMP hashes, RED draws and loss (default: random, logged)");
  app.add_option("--duration-s", o->duration_s, "stop after this long (0: at SIGINT/SIGTERM)")
      ->capture_default_str();
  app.add_option("--poll-us", o->poll_us,
                 "the longest wait between two looks at the interfaces when no frame "
                 "arrives and no event is due")
      ->capture_default_str();
  return [o] { return run_fabric(*o); };
}

}  // namespace mr::cli
