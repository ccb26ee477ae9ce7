#include "harness/cli/agent_command.h"

#include <csignal>
#include <cstdio>
#include <fstream>
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
#include "reference/io/clock.h"
#include "reference/io/memory_link.h"
#include "reference/io/pcap_link.h"

namespace mr::cli {
namespace {

std::atomic<bool> g_stop{false};

extern "C" void on_signal(int /*signal*/) { g_stop.store(true); }

struct AgentOptions {
  std::string backend = "reference";
  std::string listen = "127.0.0.1:7000";
  std::string iface;
  std::string ip = "198.18.0.2";
  std::string mac = "02:00:00:00:00:02";
  std::string token;
  std::string token_file;
  std::optional<uint64_t> seed;
  std::vector<std::string> mutants;
};

void log(const std::string& message) {
  std::fprintf(stderr, "metaroce agent: %s\n", message.c_str());
  std::fflush(stderr);
}

std::optional<std::string> read_token(const AgentOptions& o) {
  if (!o.token.empty()) return o.token;
  std::ifstream in(o.token_file);
  if (!in) return std::nullopt;
  std::string token;
  std::getline(in, token);
  while (!token.empty() && (token.back() == '\r' || token.back() == ' ')) token.pop_back();
  return token;
}

int run_agent(const AgentOptions& o) {
  if (o.backend != "reference") {
    log("backend " + o.backend + " is not available yet (only: reference)");
    return kExitHarnessError;
  }
  const auto token = read_token(o);
  if (!token || token->empty()) {
    log("give a non-empty --token or a readable --token-file");
    return kExitHarnessError;
  }
  const auto listen = agent::split_host_port(o.listen);
  const auto mac = wire::MacAddress::parse(o.mac);
  const auto ip = wire::Ipv4Address::parse(o.ip);
  if (!listen || !mac || !ip) {
    log(!listen ? listen.error() : !mac ? "bad --mac " + o.mac : "bad --ip " + o.ip);
    return kExitHarnessError;
  }
  agent::ReferenceBackendOptions options{.mac = *mac, .ipv4 = *ip, .seed = 0, .mutants = {}};
  options.seed = o.seed.value_or(std::random_device{}() | 1);
  for (const auto& name : o.mutants) {
    auto m = mutants::mutant_by_name(name);
    if (!m) {
      log("unknown mutant " + name + " (./metaroce mutants --list)");
      return kExitHarnessError;
    }
    options.mutants.enable(*m);
  }

  io::SystemClock clock;
  std::optional<io::PcapLink> pcap;
  std::unique_ptr<io::MemoryLinkPair> loopback;
  io::Link* link = nullptr;
  if (!o.iface.empty()) {
    auto opened = io::PcapLink::open(o.iface);
    if (!opened) {
      log(opened.error());
      return kExitHarnessError;
    }
    pcap.emplace(std::move(*opened));
    link = &*pcap;
  } else {
    // No interface: the device's frames go nowhere (control-plane only, for trying out).
    loopback = std::make_unique<io::MemoryLinkPair>(clock);
    link = &loopback->b();
  }

  agent::ReferenceBackend backend(*link, clock, options);
  agent::DataPathThread pump(backend);
  agent::RequestDispatcher dispatcher(backend, "reference");
  auto server = agent::AgentServer::listen(
      {.host = listen->first, .port = listen->second, .token = *token}, dispatcher, log);
  if (!server) {
    log(server.error());
    return kExitHarnessError;
  }
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  std::ostringstream banner;
  banner << "backend reference on " << link->name() << ", mac " << mac->to_string() << ", ip "
         << ip->to_string() << ", seed " << options.seed << ", " << o.mutants.size()
         << " mutant(s); listening on " << listen->first << ":" << server->port();
  log(banner.str());
  server->serve(g_stop);
  log("stopped by signal");
  return kExitOk;
}

}  // namespace

Runner setup_agent(CLI::App& app) {
  auto o = std::make_shared<AgentOptions>();
  app.add_option("--backend", o->backend, "reference (verbs: later)")->capture_default_str();
  app.add_option("--listen", o->listen, "HOST:PORT for the control protocol")
      ->capture_default_str();
  app.add_option("--iface", o->iface, "interface for RoCE frames (libpcap); none: no data path");
  app.add_option("--ip", o->ip, "the device's IPv4 address")->capture_default_str();
  app.add_option("--mac", o->mac, "the device's MAC address")->capture_default_str();
  auto* token = app.add_option("--token", o->token, "the shared secret clients must present");
  auto* file =
      app.add_option("--token-file", o->token_file, "a file whose first line is the token");
  token->excludes(file);
  app.add_option("--seed", o->seed, "seed for keys and QPNs (default: random, logged)");
  app.add_option("--mutant", o->mutants, "enable a mutant of the reference (repeatable)");
  return [o] { return run_agent(*o); };
}

}  // namespace mr::cli
