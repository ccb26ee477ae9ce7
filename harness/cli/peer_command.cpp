#include "harness/cli/peer_command.h"

#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "harness/agent/socket_io.h"
#include "harness/peer/control_socket.h"
#include "harness/peer/peer_recording.h"
#include "harness/peer/perftest_session.h"
#include "harness/peer/pingpong_session.h"
#include "harness/peer/rxe_interop.h"
#include "reference/io/pcap_link.h"
#include "reference/io/veth_pair.h"

namespace mr::cli {
namespace {

struct PeerOptions {
  std::string kind;  // pingpong, perftest, rxe
  std::string role;  // ours: server or client
  std::string address;
  std::string iface;
  std::string tool = "ib_send_bw";
  std::string tool_role = "client";  // rxe: the tool's role
  std::string ip = "198.18.0.1";
  std::string mac = "02:00:00:00:00:01";
  std::string peer_mac = "52:54:00:12:34:56";  // the rxe guest's NIC
  std::string listen = "0.0.0.0";
  std::string capture;
  std::string matrix;
  std::string out = "/tmp/metaroce-peer";
  uint32_t size = 0;  // 0: the tool's default (pingpong 4096, perftest 65536)
  uint32_t iters = 100;
  uint32_t mtu = 1024;
  uint16_t port = 18515;
  uint64_t seed = 1;
  uint64_t timeout_ms = 120'000;
};

void log(const std::string& message) {
  std::fprintf(stderr, "metaroce peer: %s\n", message.c_str());
  std::fflush(stderr);
}

// What pingpong and perftest play, from options checked before any socket is opened.
struct LivePeer {
  peer::ToolPeerOptions identity;
  std::optional<peer::PerftestTool> tool;  // perftest's; none for pingpong
};

Expected<LivePeer, std::string> check_live_options(const PeerOptions& o) {
  if (o.role != "server" && o.role != "client")
    return Unexpected(std::string("give the reference's role: server, or client ADDR"));
  if (o.role == "client" && o.address.empty())
    return Unexpected(std::string("client needs the tool's address"));
  if (o.iface.empty())
    return Unexpected(
        std::string("give --iface: the interface the reference plays --ip on (libpcap)"));
  const auto ip = wire::Ipv4Address::parse(o.ip);
  const auto mac = wire::MacAddress::parse(o.mac);
  const auto peer_mac = wire::MacAddress::parse(o.peer_mac);
  if (!ip || !mac || !peer_mac)
    return Unexpected(!ip    ? "bad --ip " + o.ip
                      : !mac ? "bad --mac " + o.mac
                             : "bad --peer-mac " + o.peer_mac);
  if (!io::is_benchmarking_cidr(o.ip + "/32"))
    return Unexpected("--ip " + o.ip + " must lie in 198.18.0.0/15");
  LivePeer live{.identity = {.mac = *mac, .ip = *ip, .peer_mac = *peer_mac, .seed = o.seed},
                .tool = std::nullopt};
  if (o.kind == "perftest") {
    live.tool = peer::perftest_tool_by_name(o.tool);
    if (!live.tool)
      return Unexpected("unknown --tool " + o.tool +
                        " (ib_send_bw, ib_write_bw, ib_read_bw, ib_atomic_bw, " +
                        "ib_send_lat, ib_write_lat, ib_read_lat)");
  }
  return live;
}

// A recording of the RoCE exchange over `pcap` when --capture is given, else none.
Expected<std::unique_ptr<io::RecordingLink>, std::string> open_capture(const PeerOptions& o,
                                                                       io::PcapLink& pcap) {
  if (o.capture.empty()) return std::unique_ptr<io::RecordingLink>{};
  return io::RecordingLink::create(o.capture, peer::peer_recording(), &pcap);
}

// The tool's TCP exchange: the reference listens (server) or connects (client). A socket
// that cannot listen is the harness's error; a tool that never comes fails the run.
struct Stop {
  std::string message;
  int exit_code;
};

Expected<peer::ControlSocket, Stop> connect_tool(const PeerOptions& o) {
  if (o.role != "server") {
    auto control = peer::ControlSocket::connect(o.address, o.port, o.timeout_ms);
    if (!control) return Unexpected(Stop{control.error(), kExitFailed});
    return std::move(*control);
  }
  auto listener = agent::listen_tcp(o.listen, o.port);
  if (!listener) return Unexpected(Stop{listener.error(), kExitHarnessError});
  log("waiting for the tool on " + o.listen + ":" + std::to_string(o.port));
  auto control = peer::ControlSocket::accept(listener->get(), o.timeout_ms);
  if (!control) return Unexpected(Stop{control.error(), kExitFailed});
  return std::move(*control);
}

// The session itself: the tool's exchange, then its traffic, with the tool's default size.
Expected<peer::TrafficReport, std::string> run_session(const PeerOptions& o, const LivePeer& live,
                                                       io::Link& link,
                                                       peer::ControlSocket& control) {
  const peer::Role role = o.role == "server" ? peer::Role::kServer : peer::Role::kClient;
  if (live.tool) {
    return peer::run_perftest_session(link, control,
                                      {.tool = *live.tool,
                                       .role = role,
                                       .size = o.size != 0 ? o.size : 65536,
                                       .iters = o.iters,
                                       .mtu = o.mtu,
                                       .tx_depth = 128,
                                       .timeout_ms = o.timeout_ms},
                                      live.identity);
  }
  return peer::run_pingpong_session(link, control,
                                    {.role = role,
                                     .size = o.size != 0 ? o.size : 4096,
                                     .iters = o.iters,
                                     .mtu = o.mtu,
                                     .timeout_ms = o.timeout_ms},
                                    live.identity);
}

int stop(const std::string& message, int exit_code) {
  log(message);
  return exit_code;
}

// pingpong / perftest against a tool reachable on this host's namespace.
int run_live(const PeerOptions& o) {
  auto live = check_live_options(o);
  if (!live) return stop(live.error(), kExitHarnessError);
  auto pcap = io::PcapLink::open(o.iface);
  if (!pcap) return stop(pcap.error(), kExitHarnessError);
  auto capture = open_capture(o, *pcap);
  if (!capture) return stop(capture.error(), kExitHarnessError);
  io::Link& link = *capture ? static_cast<io::Link&>(**capture) : *pcap;
  auto control = connect_tool(o);
  if (!control) return stop(control.error().message, control.error().exit_code);
  auto report = run_session(o, *live, link, *control);
  // The capture is closed whatever the session did: a failed run's is the one to read.
  if (*capture) {
    if (auto closed = (*capture)->close(); !closed) log(closed.error());
  }
  if (!report) return stop(report.error(), kExitFailed);
  std::printf("%s\n", report->describe().c_str());
  return kExitOk;
}

// A table cell: the first line, without pipes, at most 160 characters.
std::string cell(const std::string& text) {
  std::string out = text.substr(0, text.find('\n'));
  for (char& c : out) {
    if (c == '|') c = '/';
  }
  return out.size() > 160 ? out.substr(0, 157) + "..." : out;
}

// rxe: every requested run in a fresh guest, one table row each.
int run_rxe(const PeerOptions& o) {
  std::vector<peer::InteropCase> cases;
  if (!o.matrix.empty()) {
    if (o.matrix != "default" && o.matrix != "full") {
      log("--matrix is default or full");
      return kExitHarnessError;
    }
    cases = peer::interop_matrix(o.matrix == "full");
  } else {
    if (o.tool != "ibv_rc_pingpong" && !peer::perftest_tool_by_name(o.tool)) {
      log("unknown --tool " + o.tool);
      return kExitHarnessError;
    }
    const bool atomic = o.tool == "ib_atomic_bw";
    cases.push_back({o.tool, o.tool_role == "server" ? peer::Role::kServer : peer::Role::kClient,
                     o.mtu, atomic ? 8 : (o.size != 0 ? o.size : 4096), o.iters});
  }
  std::error_code ec;
  std::filesystem::create_directories(o.out, ec);
  std::printf("| tool | tool role | op | MTU | size | result | tool's output | reference |\n");
  std::printf("|---|---|---|---|---|---|---|---|\n");
  std::fflush(stdout);
  int failed = 0;
  for (const auto& c : cases) {
    peer::InteropOptions options;
    options.capture_path = o.out + "/" + c.name() + ".pcapng";
    options.port = o.port;
    options.seed = o.seed;
    auto r = peer::run_interop_case(c, options);
    const auto tool = peer::perftest_tool_by_name(c.tool);
    const std::string op = tool ? std::string(peer::operation_name(*tool)) : "SEND";
    if (!r) {
      ++failed;
      std::printf("| %s | %s | %s | %u | %u | error: %s | | |\n", c.tool.c_str(),
                  std::string(peer::to_string(c.tool_role)).c_str(), op.c_str(), c.mtu, c.size,
                  cell(r.error()).c_str());
    } else {
      if (!r->passed()) ++failed;
      std::printf("| %s | %s | %s | %u | %u | %s | %s | %s |\n", c.tool.c_str(),
                  std::string(peer::to_string(c.tool_role)).c_str(), op.c_str(), c.mtu, c.size,
                  cell(r->verdict()).c_str(), cell(r->tool_summary).c_str(),
                  cell(r->peer.describe()).c_str());
      if (!r->passed()) log(c.name() + ": guest ran `" + r->command_line + "`:\n" + r->tool_output);
    }
    std::fflush(stdout);
  }
  log(std::to_string(cases.size() - static_cast<size_t>(failed)) + " passed, " +
      std::to_string(failed) + " failed; captures in " + o.out);
  return failed == 0 ? kExitOk : kExitFailed;
}

}  // namespace

Runner setup_peer(CLI::App& app) {
  auto o = std::make_shared<PeerOptions>();
  app.add_option("kind", o->kind, "pingpong, perftest, or rxe (runs in the Linux rxe guest)")
      ->required();
  app.add_option("role", o->role, "pingpong/perftest: the reference's role, server or client");
  app.add_option("address", o->address, "client: the tool's address");
  app.add_option("--iface", o->iface, "pingpong/perftest: the interface to play --ip on");
  app.add_option("--tool", o->tool, "perftest/rxe: ib_send_bw, ib_write_lat, ibv_rc_pingpong ...")
      ->capture_default_str();
  app.add_option("--tool-role", o->tool_role, "rxe: the tool's role, client or server")
      ->capture_default_str();
  app.add_option("--ip", o->ip, "the reference's IPv4 address (198.18.0.0/15)")
      ->capture_default_str();
  app.add_option("--mac", o->mac, "the reference's MAC address")->capture_default_str();
  app.add_option("--peer-mac", o->peer_mac, "the tool's NIC MAC (RoCE frames go there)")
      ->capture_default_str();
  app.add_option("--listen", o->listen, "server: the TCP address to listen on")
      ->capture_default_str();
  app.add_option("--port,-p", o->port, "the tools' TCP port")->capture_default_str();
  app.add_option("--size,-s", o->size, "message size (default: the tool's)");
  app.add_option("--iters,-n", o->iters, "messages")->capture_default_str();
  app.add_option("--mtu,-m", o->mtu, "path MTU, 256..4096")->capture_default_str();
  app.add_option("--seed", o->seed, "QPN, PSN and keys")->capture_default_str();
  app.add_option("--timeout-ms", o->timeout_ms, "bound on each wait")->capture_default_str();
  app.add_option("--capture", o->capture, "pingpong/perftest: write the RoCE exchange as pcapng");
  app.add_option("--matrix", o->matrix, "rxe: default (about ten runs) or full");
  app.add_option("--out", o->out, "rxe: where captures go")->capture_default_str();
  return [o] {
    if (o->kind == "rxe") return run_rxe(*o);
    if (o->kind == "pingpong" || o->kind == "perftest") return run_live(*o);
    log("unknown kind " + o->kind + " (pingpong, perftest, rxe)");
    return kExitHarnessError;
  };
}

}  // namespace mr::cli
