#include "harness/cli/agent_command.h"

#include <csignal>
#include <cstdio>
#include <memory>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "harness/agent/agent_server.h"
#include "harness/agent/data_path_thread.h"
#include "harness/agent/reference_backend.h"
#include "harness/agent/socket_io.h"
#include "harness/agent/verbs_backend.h"
#include "harness/cli/frame_link.h"
#include "harness/dut/dut_control.h"
#include "reference/io/clock.h"
#include "reference/io/dilated_clock.h"
#include "reference/io/memory_link.h"
#include "reference/io/pcap_link.h"

namespace mr::cli {
namespace {

std::atomic<bool> g_stop{false};

extern "C" void on_signal(int /*signal*/) { g_stop.store(true); }

struct AgentOptions {
  std::string backend = "reference";
  std::string listen = "127.0.0.1:7000";
  FrameLinkChoice frame_link;  // --iface, --io, --eal, --dpdk-devargs
  std::string ip = "198.18.0.2";
  std::vector<std::string> ipv6;
  std::string mac = "02:00:00:00:00:02";
  std::string token;
  std::string token_file;
  std::optional<uint64_t> seed;
  std::vector<std::string> mutants;
  uint32_t time_dilation = 1;
  // --backend verbs
  std::string device;  // empty: the first RDMA device
  int port = 1;
  std::optional<uint32_t> gid_index;
};

void log(const std::string& message) {
  std::fprintf(stderr, "metaroce agent: %s\n", message.c_str());
  std::fflush(stderr);
}

std::optional<std::string> read_token(const AgentOptions& o) {
  if (!o.token.empty()) return o.token;
  auto token = dut::read_token_file(o.token_file);
  if (!token) return std::nullopt;
  return *token;
}

// Serves `backend` on --listen until SIGINT or SIGTERM.
int serve(agent::DutBackend& backend, const std::string& name, const std::string& host,
          uint16_t port, const std::string& token, const std::string& banner) {
  agent::RequestDispatcher dispatcher(backend, name);
  auto server =
      agent::AgentServer::listen({.host = host, .port = port, .token = token}, dispatcher, log);
  if (!server) {
    log(server.error());
    return kExitHarnessError;
  }
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  log(banner + "; listening on " + host + ":" + std::to_string(server->port()));
  server->serve(g_stop);
  log("stopped by signal");
  return kExitOk;
}

// --backend verbs: an RDMA device through libibverbs; the NIC runs the data path.
int run_verbs_agent(const AgentOptions& o, const std::string& token) {
  const auto listen = agent::split_host_port(o.listen);
  if (!listen) {
    log(listen.error());
    return kExitHarnessError;
  }
  if (o.port < 1 || o.port > 255) {
    log("bad --port " + std::to_string(o.port) + " (an RDMA port number, 1..255)");
    return kExitHarnessError;
  }
  auto backend = agent::VerbsBackend::open(
      {.device = o.device, .port = static_cast<uint8_t>(o.port), .gid_index = o.gid_index});
  if (!backend) {
    log(backend.error());
    return kExitHarnessError;
  }
  agent::VerbsBackend& b = **backend;
  return serve(b, "verbs", listen->first, listen->second, token,
               "backend verbs on " + b.device_name() + " port " + std::to_string(b.port()) +
                   ", gid index " + std::to_string(b.gid_index()));
}

int run_agent(const AgentOptions& o) {
  if (o.backend != "reference" && o.backend != "verbs") {
    log("unknown backend " + o.backend + " (reference, verbs)");
    return kExitHarnessError;
  }
  const auto token = read_token(o);
  if (!token || token->empty()) {
    log("give a non-empty --token or a readable --token-file");
    return kExitHarnessError;
  }
  if (o.backend == "verbs") {
    if (o.frame_link.io != "pcap") {
      log("--io " + o.frame_link.io +
          " is the reference backend's data path; a verbs device has its own");
      return kExitHarnessError;
    }
    return run_verbs_agent(o, *token);
  }
  const auto listen = agent::split_host_port(o.listen);
  const auto mac = wire::MacAddress::parse(o.mac);
  const auto ip = wire::Ipv4Address::parse(o.ip);
  if (!listen || !mac || !ip) {
    log(!listen ? listen.error() : !mac ? "bad --mac " + o.mac : "bad --ip " + o.ip);
    return kExitHarnessError;
  }
  agent::ReferenceBackendOptions options{.mac = *mac, .ipv4 = *ip, .seed = 0, .mutants = {}};
  for (const auto& text : o.ipv6) {
    const auto a = wire::Ipv6Address::parse(text);
    if (!a) {
      log("bad --ipv6 " + text);
      return kExitHarnessError;
    }
    options.ipv6_global.push_back(*a);
  }
  options.seed = o.seed.value_or(std::random_device{}() | 1);
  for (const auto& name : o.mutants) {
    auto m = mutants::mutant_by_name(name);
    if (!m) {
      log("unknown mutant " + name + " (./metaroce mutants --list)");
      return kExitHarnessError;
    }
    options.mutants.enable(*m);
  }

  io::SystemClock wall;
  // --time-dilation: the device's clock, and every timer on it, runs that many times slower.
  io::DilatedClock clock(wall, o.time_dilation);
  options.time_dilation = clock.factor();
  std::unique_ptr<io::Link> frames;
  std::unique_ptr<io::MemoryLinkPair> loopback;
  io::Link* link = nullptr;
  if (o.frame_link.io != "pcap" || !o.frame_link.iface.empty() || !o.frame_link.devargs.empty()) {
    auto opened = open_frame_link(o.frame_link);
    if (!opened) {
      log(opened.error());
      return kExitHarnessError;
    }
    frames = std::move(*opened);
    link = frames.get();
  } else {
    // No interface: the device's frames go nowhere (control-plane only, for trying out).
    loopback = std::make_unique<io::MemoryLinkPair>(clock);
    link = &loopback->b();
  }

  agent::ReferenceBackend backend(*link, clock, options);
  agent::DataPathThread pump(backend);
  std::ostringstream banner;
  banner << "backend reference on " << link->name() << ", mac " << mac->to_string() << ", ip "
         << ip->to_string() << ", seed " << options.seed << ", " << o.mutants.size()
         << " mutant(s)";
  if (clock.factor() > 1) banner << ", time dilated " << clock.factor() << "x";
  return serve(backend, "reference", listen->first, listen->second, *token, banner.str());
}

}  // namespace

Runner setup_agent(CLI::App& app) {
  auto o = std::make_shared<AgentOptions>();
  app.add_option("--backend", o->backend, "reference, or verbs (an RDMA device via libibverbs)")
      ->capture_default_str();
  app.add_option("--listen", o->listen, "HOST:PORT for the control protocol")
      ->capture_default_str();
  app.add_option("--iface", o->frame_link.iface, "interface for RoCE frames; none: no data path");
  app.add_option("--io", o->frame_link.io,
                 "the data path's I/O: pcap (libpcap, default) or dpdk (a net_af_packet device "
                 "on --iface, or --dpdk-devargs)")
      ->capture_default_str();
  app.add_option("--eal", o->frame_link.eal,
                 "--io dpdk: extra EAL arguments (default: --no-huge -m 256 --no-pci ...)");
  app.add_option("--dpdk-devargs", o->frame_link.devargs,
                 "--io dpdk: the device instead of net_af_packet on --iface (a NIC's PCI address)");
  app.add_option("--ip", o->ip, "the device's IPv4 address")->capture_default_str();
  app.add_option("--ipv6", o->ipv6,
                 "a global IPv6 address of the device, besides its link-local one (repeatable)");
  app.add_option("--mac", o->mac, "the device's MAC address")->capture_default_str();
  auto* token = app.add_option("--token", o->token, "the shared secret clients must present");
  auto* file =
      app.add_option("--token-file", o->token_file, "a file whose first line is the token");
  token->excludes(file);
  app.add_option("--seed", o->seed, "seed for keys and QPNs (default: random, logged)");
  app.add_option("--mutant", o->mutants, "enable a mutant of the reference (repeatable)");
  app.add_option("--time-dilation", o->time_dilation,
                 "reference: run the device's clock N times slower than the real one, so that "
                 "its microsecond timers outlast a software tester's reaction (the harness "
                 "reads N from capabilities and dilates its own clock to match)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  app.add_option("--device", o->device, "verbs: the RDMA device (default: the first one)");
  app.add_option("--port", o->port, "verbs: the device's port")->capture_default_str();
  app.add_option("--gid-index", o->gid_index,
                 "verbs: the source GID (default: the first RoCE v2 GID with an IPv4 address)");
  return [o] { return run_agent(*o); };
}

}  // namespace mr::cli
