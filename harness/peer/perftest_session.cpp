#include "harness/peer/perftest_session.h"

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <cstdio>
#include <thread>

#include "harness/peer/perftest_exchange.h"

namespace mr::peer {
namespace {

using Clock = std::chrono::steady_clock;
constexpr uint64_t kExchangeMs = 30'000;
constexpr uint32_t kPageSize = 4096;  // perftest's cycle buffer default
constexpr uint32_t kCacheLine = 64;
constexpr uint16_t kOutReads = 16;    // what we accept as READ/ATOMIC responder
constexpr uint32_t kMaxIters = 4000;  // receives and CQ entries are posted up front

struct ToolFacts {
  PerftestTool tool;
  std::string_view name;
  std::string_view operation;
  bool bandwidth;
};

constexpr std::array kTools{
    ToolFacts{PerftestTool::kSendBw, "ib_send_bw", "SEND", true},
    ToolFacts{PerftestTool::kWriteBw, "ib_write_bw", "WRITE", true},
    ToolFacts{PerftestTool::kReadBw, "ib_read_bw", "READ", true},
    ToolFacts{PerftestTool::kAtomicBw, "ib_atomic_bw", "ATOMIC", true},
    ToolFacts{PerftestTool::kSendLat, "ib_send_lat", "SEND", false},
    ToolFacts{PerftestTool::kWriteLat, "ib_write_lat", "WRITE", false},
    ToolFacts{PerftestTool::kReadLat, "ib_read_lat", "READ", false},
};

const ToolFacts& facts(PerftestTool tool) {
  for (const auto& f : kTools) {
    if (f.tool == tool) return f;
  }
  return kTools[0];
}

// One symmetric exchange: the client writes first, the server reads first.
Expected<std::string, std::string> exchange(ControlSocket& control, Role role,
                                            const std::string& mine, std::string_view what) {
  if (role == Role::kClient) {
    if (auto ok = control.write_all(mine, kExchangeMs, what); !ok) return Unexpected(ok.error());
    return control.read_exact(mine.size(), kExchangeMs, what);
  }
  auto theirs = control.read_exact(mine.size(), kExchangeMs, what);
  if (!theirs) return theirs;
  if (auto ok = control.write_all(mine, kExchangeMs, what); !ok) return Unexpected(ok.error());
  return theirs;
}

// Everything after the first keys message is a handshake carrying the same keys again.
Expected<void, std::string> handshake(ControlSocket& control, Role role, const std::string& keys,
                                      const std::string& what) {
  auto theirs = exchange(control, role, keys, what);
  if (!theirs) return Unexpected(theirs.error());
  if (auto parsed = parse_perftest_keys(*theirs); !parsed) {
    return Unexpected(what + ": " + parsed.error());
  }
  return {};
}

struct Run {
  LinkedPeer& peer;
  const ToolQp& qp;
  const PerftestConfig& config;
  const PerftestKeys& tool;
  uint64_t half;  // local half [0, half), remote half [half, 2 * half)
  Clock::time_point deadline;
  TrafficReport report;
  std::optional<PerftestReport> tool_report;
};

Expected<void, std::string> past_deadline(const Run& r, const std::string& what) {
  if (Clock::now() < r.deadline) return {};
  return Unexpected(std::string(tool_name(r.config.tool)) + " traffic: " + what + " within " +
                    std::to_string(r.config.timeout_ms) + " ms");
}

transport::SendWr request(const Run& r, uint64_t wr_id) {
  transport::SendWr wr;
  wr.wr_id = wr_id;
  const uint32_t length = r.config.tool == PerftestTool::kAtomicBw ? 8 : r.config.size;
  wr.sg_list.push_back({.addr = r.qp.info.va, .length = length, .lkey = r.qp.info.lkey});
  wr.remote_addr = r.tool.vaddr;
  wr.rkey = r.tool.rkey;
  switch (r.config.tool) {
    case PerftestTool::kSendBw:
    case PerftestTool::kSendLat:
      wr.opcode = transport::SendOpcode::kSend;
      break;
    case PerftestTool::kWriteBw:
    case PerftestTool::kWriteLat:
      wr.opcode = transport::SendOpcode::kWrite;
      break;
    case PerftestTool::kReadBw:
    case PerftestTool::kReadLat:
      wr.opcode = transport::SendOpcode::kRead;
      break;
    case PerftestTool::kAtomicBw:
      wr.opcode = transport::SendOpcode::kFetchAdd;
      wr.compare_add = 1;
      break;
  }
  return wr;
}

uint32_t message_bytes(const PerftestConfig& c) {
  return c.tool == PerftestTool::kAtomicBw ? 8 : c.size;
}

// Bandwidth client (and ib_read_lat's client with a window of 1): `iters` requests with
// at most `window` outstanding.
Expected<void, std::string> drive_requests(Run& r, uint32_t window) {
  uint32_t posted = 0;
  uint32_t completed = 0;
  while (completed < r.config.iters) {
    while (posted < r.config.iters && posted - completed < window) {
      if (auto ok = r.peer.post_send(r.qp.info.qpn, request(r, posted)); !ok) return ok;
      ++posted;
    }
    auto done = poll_tool_qp(r.peer, r.qp, 64, 500);
    if (!done) return Unexpected(done.error());
    completed += static_cast<uint32_t>(done->size());
    if (auto late = past_deadline(
            r, std::to_string(completed) + " of " + std::to_string(r.config.iters) + " completed");
        !late) {
      return late;
    }
  }
  r.report.messages_sent = completed;
  r.report.bytes = uint64_t{completed} * message_bytes(r.config);
  return {};
}

// ib_send_lat: each side sends once the peer's previous message arrived; the client starts.
Expected<void, std::string> send_ping_pong(Run& r) {
  const uint32_t n = r.config.iters;
  uint32_t sent = 0;
  uint32_t received = 0;
  uint32_t completed = 0;
  if (r.config.role == Role::kClient) {
    if (auto ok = r.peer.post_send(r.qp.info.qpn, request(r, 0)); !ok) return ok;
    ++sent;
  }
  while (received < n || completed < n) {
    auto done = poll_tool_qp(r.peer, r.qp, 16, 500);
    if (!done) return Unexpected(done.error());
    for (const auto& c : *done) {
      if (c.opcode != transport::WcOpcode::kRecv) {
        ++completed;
        continue;
      }
      ++received;
      if (sent < n) {
        if (auto ok = r.peer.post_send(r.qp.info.qpn, request(r, sent)); !ok) return ok;
        ++sent;
      }
    }
    if (auto late = past_deadline(
            r, std::to_string(received) + " of " + std::to_string(n) + " messages received");
        !late) {
      return late;
    }
  }
  r.report.messages_sent = completed;
  r.report.messages_received = received;
  r.report.bytes = uint64_t{r.config.size} * (completed + received);
  return {};
}

// Waits until the last byte of the tool's WRITE into our remote half carries `count`.
Expected<void, std::string> wait_for_write(Run& r, uint8_t count, uint32_t index) {
  const uint64_t offset = r.half + r.config.size - 1;
  for (;;) {
    auto byte = r.peer.read(r.qp.info.qpn, offset, 1);
    if (!byte) return Unexpected(byte.error());
    if ((*byte)[0] == count) return {};
    if (auto late = past_deadline(r, "WRITE " + std::to_string(index + 1) + " of " +
                                         std::to_string(r.config.iters) + " did not arrive");
        !late) {
      return late;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
}

// ib_write_lat: WRITE ping-pong through memory; the server writes first.
Expected<void, std::string> write_ping_pong(Run& r) {
  const uint32_t n = r.config.iters;
  const bool first = r.config.role == Role::kServer;
  uint32_t sent = 0;
  uint32_t received = 0;
  while (sent < n || received < n) {
    if (received < n && !(sent == 0 && first)) {
      if (auto ok = wait_for_write(r, static_cast<uint8_t>(received + 1), received); !ok) {
        return ok;
      }
      ++received;
    }
    if (sent < n) {
      // The tool polls the last byte of what we write for our count.
      const uint8_t count = static_cast<uint8_t>(sent + 1);
      if (auto ok = r.peer.write(r.qp.info.qpn, r.config.size - 1, {&count, 1}); !ok) {
        return ok;
      }
      if (auto ok = r.peer.post_send(r.qp.info.qpn, request(r, sent)); !ok) return ok;
      ++sent;
      for (bool reaped = false; !reaped;) {
        auto done = poll_tool_qp(r.peer, r.qp, 1, 500);
        if (!done) return Unexpected(done.error());
        reaped = !done->empty();
        if (auto late = past_deadline(r, "WRITE " + std::to_string(sent) + " not completed");
            !late) {
          return late;
        }
      }
    }
  }
  r.report.messages_sent = sent;
  r.report.messages_received = received;
  r.report.bytes = uint64_t{r.config.size} * (sent + received);
  return {};
}

// A passive SEND server: every receive posted up front must have completed by now.
Expected<void, std::string> count_receives(Run& r) {
  uint32_t received = 0;
  while (received < r.config.iters) {
    auto done = poll_tool_qp(r.peer, r.qp, 64, 500);
    if (!done) return Unexpected(done.error());
    received += static_cast<uint32_t>(done->size());
    if (done->empty()) {
      return Unexpected(std::string(tool_name(r.config.tool)) +
                        " traffic: " + std::to_string(received) + " of " +
                        std::to_string(r.config.iters) + " SENDs received when the tool finished");
    }
  }
  r.report.messages_received = received;
  r.report.bytes = uint64_t{received} * r.config.size;
  return {};
}

bool uses_receives(const PerftestConfig& c) {
  return c.tool == PerftestTool::kSendLat ||
         (c.tool == PerftestTool::kSendBw && c.role == Role::kServer);
}

bool one_sided_bandwidth(PerftestTool t) {
  return t == PerftestTool::kWriteBw || t == PerftestTool::kReadBw || t == PerftestTool::kAtomicBw;
}

// A server's handshake whose first read may wait for the client's whole traffic.
Expected<void, std::string> passive_handshake(ControlSocket& control, const std::string& keys,
                                              uint64_t timeout_ms, const std::string& what) {
  auto theirs = control.read_exact(kPerftestKeysSize, timeout_ms, what);
  if (!theirs) return Unexpected(theirs.error());
  if (auto parsed = parse_perftest_keys(*theirs); !parsed) {
    return Unexpected(what + ": " + parsed.error());
  }
  return control.write_all(keys, kExchangeMs, what);
}

// The closing handshake. Some tools close their socket without one (the latency tools of
// some perftest versions): the peer's end of file there is a normal end.
Expected<void, std::string> closing_handshake(ControlSocket& control, Role role,
                                              const std::string& keys, uint64_t timeout_ms) {
  if (role == Role::kClient) {
    if (auto ok = control.write_all(keys, kExchangeMs, "closing handshake"); !ok) return {};
    auto theirs = control.read_some(kPerftestKeysSize, kExchangeMs, "closing handshake");
    if (!theirs) return Unexpected(theirs.error());
    return {};  // its keys, or "" when the tool closed first
  }
  auto theirs = control.read_some(kPerftestKeysSize, timeout_ms, "closing handshake");
  if (!theirs) return Unexpected(theirs.error());
  if (theirs->empty()) return {};
  std::string all = *theirs;
  if (all.size() < kPerftestKeysSize) {
    auto rest =
        control.read_exact(kPerftestKeysSize - all.size(), kExchangeMs, "closing handshake");
    if (!rest) return Unexpected(rest.error());
    all += *rest;
  }
  if (auto parsed = parse_perftest_keys(all); !parsed) {
    return Unexpected("closing handshake: " + parsed.error());
  }
  return control.write_all(keys, kExchangeMs, "closing handshake");
}

// The client's results, field by field as perftest's bw report exchange sends them: size
// and iterations as 64-bit integers, then peak and average bandwidth (MB/s) and message
// rate (Mpps) as doubles, all in network byte order. Returns the tool's.
Expected<PerftestReport, std::string> exchange_reports(ControlSocket& control, Role role,
                                                       const Run& r) {
  PerftestReport mine;
  mine.size = message_bytes(r.config);
  mine.iters = r.config.iters;
  const double seconds = r.report.seconds > 0 ? r.report.seconds : 1;
  mine.bw_average_mb = static_cast<double>(r.report.bytes) / seconds / (1 << 20);
  mine.bw_peak_mb = mine.bw_average_mb;
  mine.msg_rate_mpps = static_cast<double>(r.report.messages_sent) / seconds / 1e6;
  const auto be64 = [](uint64_t v) {
    std::string out(8, '\0');
    for (int i = 7; i >= 0; --i, v >>= 8) out[static_cast<size_t>(i)] = static_cast<char>(v & 0xff);
    return out;
  };
  const auto from_be64 = [](const std::string& b) {
    uint64_t v = 0;
    for (const char c : b) v = (v << 8) | static_cast<uint8_t>(c);
    return v;
  };
  const auto bits = [](double d) { return std::bit_cast<uint64_t>(d); };
  const uint64_t fields[] = {mine.size, mine.iters, bits(mine.bw_peak_mb), bits(mine.bw_average_mb),
                             bits(mine.msg_rate_mpps)};
  const char* names[] = {"report size", "report iterations", "report BW peak", "report BW average",
                         "report message rate"};
  uint64_t theirs[5] = {};
  for (size_t i = 0; i < 5; ++i) {
    auto got = exchange(control, role, be64(fields[i]), names[i]);
    if (!got) return Unexpected(got.error());
    theirs[i] = from_be64(*got);
  }
  return PerftestReport{theirs[0], theirs[1], std::bit_cast<double>(theirs[2]),
                        std::bit_cast<double>(theirs[3]), std::bit_cast<double>(theirs[4])};
}

// The traffic itself, between the last handshake before it and the closing one.
Expected<void, std::string> traffic(Run& r) {
  const bool client = r.config.role == Role::kClient;
  switch (r.config.tool) {
    case PerftestTool::kSendBw:
    case PerftestTool::kWriteBw:
    case PerftestTool::kReadBw:
    case PerftestTool::kAtomicBw: {
      if (!client) return {};  // passive: the client's closing handshake says it is done
      const bool reads =
          r.config.tool == PerftestTool::kReadBw || r.config.tool == PerftestTool::kAtomicBw;
      const uint32_t window =
          reads ? std::min<uint32_t>(r.config.tx_depth, std::max<uint16_t>(r.tool.out_reads, 1))
                : r.config.tx_depth;
      return drive_requests(r, window);
    }
    case PerftestTool::kSendLat:
      return send_ping_pong(r);
    case PerftestTool::kWriteLat:
      return write_ping_pong(r);
    case PerftestTool::kReadLat:
      return client ? drive_requests(r, 1) : Expected<void, std::string>{};
  }
  return {};
}

}  // namespace

std::string_view tool_name(PerftestTool tool) { return facts(tool).name; }
std::string_view operation_name(PerftestTool tool) { return facts(tool).operation; }
bool is_bandwidth_tool(PerftestTool tool) { return facts(tool).bandwidth; }

std::optional<PerftestTool> perftest_tool_by_name(std::string_view name) {
  for (const auto& f : kTools) {
    if (f.name == name) return f.tool;
  }
  return std::nullopt;
}

}  // namespace mr::peer

namespace mr::peer {

namespace {

// What the version, system-data and MTU exchanges settle, in perftest's order.
struct Settled {
  uint64_t cycle_buffer = 0;  // the tool's cycle buffer size
  uint32_t mtu = 0;           // the smaller of ours and the tool's, as the tool settles it
};

Expected<Settled, std::string> settle_parameters(ControlSocket& control,
                                                 const PerftestConfig& config) {
  const Role role = config.role;
  auto version = exchange(control, role, format_perftest_version(kPerftestVersion), "version");
  if (!version) return Unexpected(version.error());
  if (auto v = parse_perftest_version(*version); !v) return Unexpected(v.error());
  auto cycle = exchange(control, role, format_perftest_int(kPageSize), "cycle buffer size");
  if (!cycle) return Unexpected(cycle.error());
  auto cycle_value = parse_perftest_int(*cycle, "cycle buffer size");
  if (!cycle_value) return Unexpected(cycle_value.error());
  auto line = exchange(control, role, format_perftest_int(kCacheLine), "cache line size");
  if (!line) return Unexpected(line.error());
  if (auto v = parse_perftest_int(*line, "cache line size"); !v) return Unexpected(v.error());
  auto mtu_bytes = exchange(control, role, format_perftest_mtu(config.mtu), "MTU");
  if (!mtu_bytes) return Unexpected(mtu_bytes.error());
  auto tool_mtu = parse_perftest_mtu(*mtu_bytes);
  if (!tool_mtu) return Unexpected(tool_mtu.error());
  return Settled{static_cast<uint64_t>(*cycle_value), std::min(config.mtu, *tool_mtu)};
}

// The keys messages both ways, then the QP connected to the tool's; the tool's keys.
Expected<PerftestKeys, std::string> connect_to_tool(LinkedPeer& peer, const ToolQp& qp,
                                                    ControlSocket& control, Role role,
                                                    const std::string& keys, uint32_t mtu,
                                                    const wire::MacAddress& tool_mac) {
  auto theirs = exchange(control, role, keys, "keys");
  if (!theirs) return Unexpected(theirs.error());
  auto tool = parse_perftest_keys(*theirs);
  if (!tool) return Unexpected(tool.error());
  const uint8_t reads = static_cast<uint8_t>(std::clamp<uint16_t>(tool->out_reads, 1, 16));
  if (auto ok = connect_tool_qp(peer, qp, tool_mac,
                                {.qpn = tool->qpn,
                                 .psn = tool->psn,
                                 .gid = tool->gid,
                                 .mtu = mtu,
                                 .max_rd_atomic = reads,
                                 .max_dest_rd_atomic = static_cast<uint8_t>(kOutReads)});
      !ok) {
    return Unexpected(ok.error());
  }
  return tool;
}

// After the traffic: the one-sided bandwidth tools hand-shake once more and send the
// client's results to the server (a passive server waits here for the client to finish);
// then the closing handshake.
Expected<void, std::string> close_session(ControlSocket& control, const std::string& keys,
                                          Run& run) {
  const PerftestConfig& config = run.config;
  const Role role = config.role;
  if (one_sided_bandwidth(config.tool)) {
    auto ok = role == Role::kServer
                  ? passive_handshake(control, keys, config.timeout_ms, "handshake after traffic")
                  : handshake(control, role, keys, "handshake after traffic");
    if (!ok) return ok;
    auto theirs_report = exchange_reports(control, role, run);
    if (!theirs_report) return Unexpected(theirs_report.error());
    run.tool_report = *theirs_report;
  }
  return closing_handshake(control, role, keys, config.timeout_ms);
}

}  // namespace

Expected<TrafficReport, std::string> run_perftest_session(io::Link& link, ControlSocket& control,
                                                          const PerftestConfig& config,
                                                          const ToolPeerOptions& identity) {
  const std::string name(tool_name(config.tool));
  if (config.size == 0 || config.iters == 0 || config.iters > kMaxIters) {
    return Unexpected(name + ": size must be > 0 and iters 1.." + std::to_string(kMaxIters));
  }
  const auto fail = [&](const std::string& what) { return Unexpected(name + ": " + what); };
  const Role role = config.role;
  auto settled = settle_parameters(control, config);
  if (!settled) return fail(settled.error());

  // Our buffer: a local half we send from, a remote half the tool may touch. The tool
  // cycles its remote addresses within the larger of the two cycle buffers.
  const uint64_t half =
      std::max<uint64_t>({uint64_t{config.size}, uint64_t{kPageSize}, settled->cycle_buffer});
  LinkedPeer peer(link, identity.peer_identity());
  auto created = create_tool_qp(peer, 2 * half);
  if (!created) return fail(created.error());
  const ToolQp& qp = *created;
  const std::string keys = format_perftest_keys({.lid = 0,
                                                 .out_reads = kOutReads,
                                                 .qpn = qp.info.qpn,
                                                 .psn = qp.psn,
                                                 .rkey = qp.info.rkey,
                                                 .vaddr = qp.info.va + half,
                                                 .gid = qp.gid,
                                                 .srqn = 0});
  auto tool = connect_to_tool(peer, qp, control, role, keys, settled->mtu, identity.peer_mac);
  if (!tool) return fail(tool.error());
  if (uses_receives(config)) {
    for (uint32_t i = 0; i < config.iters; ++i) {
      if (auto ok = post_tool_recv(peer, qp, 1'000'000 + i, half, config.size); !ok)
        return fail(ok.error());
    }
  }
  // The tools synchronise with the keys message: after connecting, after printing the
  // remote side, and (ib_send_bw with the server's receives posted, the latency tools with
  // their work requests prepared) once more just before the traffic.
  const int syncs = one_sided_bandwidth(config.tool) ? 2 : 3;
  for (int i = 0; i < syncs; ++i) {
    if (auto ok = handshake(control, role, keys, "handshake " + std::to_string(i + 2)); !ok) {
      return fail(ok.error());
    }
  }

  Run run{peer,  qp,   config,
          *tool, half, Clock::now() + std::chrono::milliseconds(config.timeout_ms),
          {},    {}};
  const auto start = Clock::now();
  if (auto ok = traffic(run); !ok) return fail(ok.error());
  run.report.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (auto ok = close_session(control, keys, run); !ok) return fail(ok.error());
  if (role == Role::kServer && is_bandwidth_tool(config.tool)) {
    // Passive: the traffic lasted until the client's handshake after it.
    run.report.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  }
  if (config.tool == PerftestTool::kSendBw && role == Role::kServer) {
    if (auto ok = count_receives(run); !ok) return fail(ok.error());
  }
  if (run.tool_report && role == Role::kServer) {
    run.report.tool_says = run.tool_report->describe();
  }
  return run.report;
}

}  // namespace mr::peer

namespace mr::peer {

std::string PerftestReport::describe() const {
  char text[128];
  std::snprintf(text, sizeof text, "%llu x %llu bytes, BW average %.2f MB/sec, %.6f Mpps",
                static_cast<unsigned long long>(iters), static_cast<unsigned long long>(size),
                bw_average_mb, msg_rate_mpps);
  return text;
}

}  // namespace mr::peer
