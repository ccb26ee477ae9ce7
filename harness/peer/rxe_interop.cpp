#include "harness/peer/rxe_interop.h"

#include <cstdio>
#include <memory>
#include <optional>
#include <utility>

#include "harness/agent/socket_io.h"
#include "harness/analyze/analyze_capture.h"
#include "harness/analyze/report.h"
#include "harness/dut/rxe/rxe_guest.h"
#include "harness/peer/control_socket.h"
#include "harness/peer/peer_recording.h"
#include "harness/peer/perftest_session.h"
#include "harness/peer/pingpong_session.h"
#include "reference/io/namespaced_pcap_link.h"

namespace mr::peer {
namespace {

constexpr uint32_t kGuestMtu = 9000;  // IB MTU 4096 needs more than 4096 + headers
constexpr size_t kViolationLinesKept = 10;

bool is_pingpong(const InteropCase& c) { return c.tool == "ibv_rc_pingpong"; }

// The peer's side of the run: exchange and traffic on an established control connection.
Expected<TrafficReport, std::string> run_session(const InteropCase& c, io::Link& link,
                                                 ControlSocket& control,
                                                 const ToolPeerOptions& identity,
                                                 uint64_t timeout_ms) {
  const Role ours = opposite(c.tool_role);
  if (is_pingpong(c)) {
    return run_pingpong_session(
        link, control,
        {.role = ours, .size = c.size, .iters = c.iters, .mtu = c.mtu, .timeout_ms = timeout_ms},
        identity);
  }
  const auto tool = perftest_tool_by_name(c.tool);
  if (!tool) return Unexpected("unknown tool " + c.tool);
  return run_perftest_session(link, control,
                              {.tool = *tool,
                               .role = ours,
                               .size = c.size,
                               .iters = c.iters,
                               .mtu = c.mtu,
                               .tx_depth = 128,
                               .timeout_ms = timeout_ms},
                              identity);
}

void analyze_into(const std::string& path, InteropResult& r) {
  analyze::Analyzer a([&](const analyze::Violation& v) {
    if (r.violation_lines.size() < kViolationLinesKept) {
      r.violation_lines.push_back(analyze::violation_line(v));
    }
  });
  if (auto done = analyze::analyze_capture(path, a); !done) {
    r.violation_lines.push_back("capture unreadable: " + done.error().to_string());
    ++r.violations;
  }
  r.roce_frames = a.counts().roce;
  r.violations += a.counts().violations;
}

}  // namespace

std::string InteropCase::name() const {
  return tool + "-" + std::string(to_string(tool_role)) + "-mtu" + std::to_string(mtu) + "-s" +
         std::to_string(size);
}

std::string InteropResult::verdict() const {
  if (passed()) return "pass";
  if (peer_error) return "fail: peer: " + *peer_error;
  if (tool_status != 0) return "fail: tool exit status " + std::to_string(tool_status);
  if (output_error) return "fail: " + *output_error;
  if (roce_frames == 0) return "fail: no RoCE frames captured";
  return "fail: " + std::to_string(violations) + " violation(s)" +
         (violation_lines.empty() ? "" : ": " + violation_lines.front());
}

std::string tool_command_line(const InteropCase& c, uint16_t port) {
  std::string cmd = c.tool + " -d rxe0";
  if (is_pingpong(c)) {
    cmd += " -g 1 -m " + std::to_string(c.mtu) + " -s " + std::to_string(c.size) + " -n " +
           std::to_string(c.iters) + " -p " + std::to_string(port);
  } else {
    // -x: perftest's GID index; -F: no failure on the guest's unknown CPU frequency.
    cmd += " -x 1 -F -m " + std::to_string(c.mtu) + " -n " + std::to_string(c.iters) + " -p " +
           std::to_string(port);
    if (c.tool != "ib_atomic_bw") cmd += " -s " + std::to_string(c.size);
  }
  if (c.tool_role == Role::kClient) cmd += " 198.18.0.3";
  return cmd;
}

namespace {

// The guest runs the tool and no agent: exec mode.
dut::RxeGuestOptions tool_guest_options(const InteropOptions& options, const std::string& command) {
  dut::RxeGuestOptions g;
  g.metaroce_binary = "/usr/bin/true";  // exec mode runs no agent
  g.console_log = options.console_log;
  g.netdev_mtu = kGuestMtu;
  g.boot_timeout_ms = 240'000;
  g.seed = options.seed;
  g.exec = command;
  return g;
}

// The peer's side, on a thread inside the guest's namespace (a connect must start there):
// the control connection (we connect to a tool server, or accept a tool client), then the
// session. Its outcome goes into result.
void run_peer_side(const InteropCase& c, const dut::RxeGuest& guest, const dut::RxeGuestOptions& g,
                   int listener, io::Link& link, const InteropOptions& options,
                   InteropResult& result) {
  const ToolPeerOptions identity{
      .mac = g.tester_mac, .ip = g.tester_ip, .peer_mac = g.guest_mac, .seed = options.seed};
  auto inside = guest.netns().run_inside([&] {
    auto control =
        c.tool_role == Role::kServer
            ? ControlSocket::connect(g.guest_ip.to_string(), options.port, options.timeout_ms)
            : ControlSocket::accept(listener, options.timeout_ms);
    if (!control) {
      result.peer_error = control.error();
      return;
    }
    auto report = run_session(c, link, *control, identity, options.timeout_ms);
    if (report) {
      result.peer = *report;
    } else {
      result.peer_error = report.error();
    }
  });
  if (!inside) result.peer_error = inside.error();
}

// The tool's own word on its run, read from its output: its summary line, or why the
// output is not a success.
void read_tool_output(const InteropCase& c, InteropResult& result) {
  if (is_pingpong(c)) {
    if (auto pp = parse_pingpong_output(result.tool_output); pp) {
      char text[64];
      std::snprintf(text, sizeof text, "%.2f Mbit/sec, %.2f usec/iter", pp->mbit_per_sec,
                    pp->usec_per_iter);
      result.tool_summary = text;
    } else {
      result.output_error = pp.error();
    }
    return;
  }
  const auto tool = perftest_tool_by_name(c.tool);
  if (tool && *tool == PerftestTool::kReadLat && c.tool_role == Role::kServer) {
    // ib_read_lat's server measures nothing and prints no table: its success is the
    // exchange it completed (it prints the remote side) and its exit status.
    if (result.tool_output.find("remote address:") == std::string::npos) {
      result.output_error = "no \"remote address:\" line in the tool's output";
    } else {
      result.tool_summary = "exchange completed (the server prints no table)";
    }
    return;
  }
  // Only the side that measures prints a row: the client of a one-sided test, both sides
  // of SEND (the server counts receives) and of the ping-pong latency tests.
  const bool row = c.tool_role == Role::kClient ||
                   (tool && (*tool == PerftestTool::kSendBw || *tool == PerftestTool::kSendLat ||
                             *tool == PerftestTool::kWriteLat));
  if (auto pt = parse_perftest_output(result.tool_output, row); pt) {
    result.tool_summary = pt->describe();
  } else {
    result.output_error = pt.error();
  }
}

}  // namespace

Expected<InteropResult, std::string> run_interop_case(const InteropCase& c,
                                                      const InteropOptions& options) {
  if (options.capture_path.empty()) return Unexpected(std::string("no capture path"));
  InteropResult result;
  result.command_line = tool_command_line(c, options.port);
  dut::RxeGuestOptions guest_options = tool_guest_options(options, result.command_line);
  std::optional<io::PcapLink> pcap;
  agent::UniqueFd listener;
  // Before the boot: the capture sees the guest's first frame, and a tool client finds us
  // listening on the host's end of the tap.
  guest_options.on_network_ready = [&](const io::NetworkNamespace& ns,
                                       const std::string& tap) -> Expected<void, std::string> {
    auto opened = io::open_pcap_link_in(ns, tap);
    if (!opened) return Unexpected(opened.error());
    pcap.emplace(std::move(*opened));
    if (c.tool_role == Role::kServer) return {};
    std::optional<Expected<agent::UniqueFd, std::string>> listening;
    auto inside = ns.run_inside([&] {
      listening.emplace(agent::listen_tcp(guest_options.host_ip.to_string(), options.port));
    });
    if (!inside) return Unexpected(inside.error());
    if (!*listening) return Unexpected(listening->error());
    listener = std::move(**listening);
    return {};
  };
  auto guest = dut::RxeGuest::start(guest_options);
  if (!guest) return Unexpected(guest.error());

  auto capture = io::RecordingLink::create(options.capture_path, peer_recording(), &*pcap);
  if (!capture) return Unexpected(capture.error());
  run_peer_side(c, *guest, guest_options, listener.get(), **capture, options, result);
  // The tool ends on its own after success; after a peer failure it may hang: bounded.
  auto exited = guest->wait_exec(result.peer_error ? 20'000 : options.timeout_ms);
  if (exited) {
    result.tool_status = exited->status;
    result.tool_output = exited->output;
  } else {
    result.tool_output = exited.error();
  }
  guest = Unexpected(std::string("stopped"));  // QEMU, tap and namespace go now
  result.frames = (*capture)->frames();
  if (auto closed = (*capture)->close(); !closed) return Unexpected(closed.error());
  capture->reset();
  pcap.reset();
  read_tool_output(c, result);
  analyze_into(options.capture_path, result);
  return result;
}

std::vector<InteropCase> interop_matrix(bool full) {
  if (!full) {
    // One run per tool and role where it matters most; both MTUs; small and large sizes.
    return {
        {"ibv_rc_pingpong", Role::kClient, 1024, 4096, 20},
        {"ibv_rc_pingpong", Role::kServer, 4096, 8192, 20},
        {"ib_send_bw", Role::kClient, 4096, 65536, 50},
        {"ib_send_bw", Role::kServer, 1024, 4096, 50},
        {"ib_write_bw", Role::kClient, 1024, 65536, 50},
        {"ib_write_bw", Role::kServer, 4096, 65536, 50},
        {"ib_read_bw", Role::kClient, 4096, 65536, 50},
        {"ib_read_bw", Role::kServer, 1024, 4096, 50},
        {"ib_atomic_bw", Role::kClient, 1024, 8, 50},
        {"ib_send_lat", Role::kClient, 1024, 2048, 50},
        {"ib_write_lat", Role::kServer, 4096, 8192, 50},
        {"ib_read_lat", Role::kClient, 1024, 4096, 50},
    };
  }
  // Size-major, so that a run cut short has covered every tool, role and MTU at one size.
  std::vector<InteropCase> all;
  const char* tools[] = {"ibv_rc_pingpong", "ib_send_bw",  "ib_write_bw",  "ib_read_bw",
                         "ib_atomic_bw",    "ib_send_lat", "ib_write_lat", "ib_read_lat"};
  for (const uint32_t size : {4096U, 65536U, 64U}) {
    for (const char* tool : tools) {
      const bool atomic = std::string(tool) == "ib_atomic_bw";
      if (atomic && size != 4096) continue;  // ATOMIC is always 8 bytes: one size
      for (const Role role : {Role::kClient, Role::kServer}) {
        for (const uint32_t mtu : {1024U, 4096U}) {
          all.push_back({tool, role, mtu, atomic ? 8 : size, 50});
        }
      }
    }
  }
  return all;
}

}  // namespace mr::peer
