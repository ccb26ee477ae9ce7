#include "harness/peer/pingpong_session.h"

#include <algorithm>
#include <chrono>
#include <functional>

#include "harness/peer/pingpong_exchange.h"

namespace mr::peer {
namespace {

using Clock = std::chrono::steady_clock;
constexpr uint64_t kSendWrId = 1;
constexpr uint64_t kRecvWrId = 2;
constexpr uint64_t kExchangeMs = 30'000;
constexpr uint32_t kMaxPostedRecvs = 1000;

Expected<void, std::string> add_context(Expected<void, std::string> r, const std::string& what) {
  if (!r) return Unexpected(what + ": " + r.error());
  return r;
}

// The session's QP, its receive queue, and how many receives it has posted so far.
struct PingpongQp {
  LinkedPeer& peer;
  const ToolQp& qp;
  uint32_t recvs_posted = 0;

  Expected<void, std::string> post_recv(uint32_t size) {
    if (auto ok = post_tool_recv(peer, qp, kRecvWrId, 0, size); !ok) return ok;
    ++recvs_posted;
    return {};
  }
};

Expected<PingpongDest, std::string> read_destination(ControlSocket& control) {
  auto bytes = control.read_exact(kPingpongMessageSize, kExchangeMs, "ibv_rc_pingpong message");
  if (!bytes) return Unexpected(bytes.error());
  return parse_pingpong_message(*bytes);
}

// The tool's TCP exchange in the role opposite to the tool's: the server reads first and
// connects before it answers; the client connects after its "done". `connect` takes the
// tool's destination.
Expected<void, std::string> trade_destinations(
    ControlSocket& control, Role role, const PingpongDest& mine,
    const std::function<Expected<void, std::string>(const PingpongDest&)>& connect) {
  const std::string message = format_pingpong_message(mine);
  if (role == Role::kServer) {
    auto tool = read_destination(control);
    if (!tool) return Unexpected(tool.error());
    if (auto ok = add_context(connect(*tool), "connecting the QP"); !ok) return ok;
    if (auto ok = control.write_all(message, kExchangeMs, "pingpong message"); !ok) return ok;
    // The client's "done": its QP is connected and its first SEND may follow.
    auto done = control.read_exact(kPingpongDone.size(), kExchangeMs, "\"done\"");
    if (!done) return Unexpected(done.error());
    return {};
  }
  if (auto ok = control.write_all(message, kExchangeMs, "pingpong message"); !ok) return ok;
  auto tool = read_destination(control);
  if (!tool) return Unexpected(tool.error());
  if (auto ok = control.write_all(kPingpongDone, kExchangeMs, "\"done\""); !ok) return ok;
  return add_context(connect(*tool), "connecting the QP");
}

// The tool's loop, mirrored: a send goes out once the previous send completed and the peer's
// message arrived; the client starts. Bounded by config.timeout_ms.
Expected<TrafficReport, std::string> mirror_traffic(PingpongQp& q, const PingpongConfig& config) {
  transport::SendWr send;
  send.wr_id = kSendWrId;
  send.opcode = transport::SendOpcode::kSend;
  send.sg_list.push_back({.addr = q.qp.info.va, .length = config.size, .lkey = q.qp.info.lkey});
  const auto start = Clock::now();
  const auto deadline = start + std::chrono::milliseconds(config.timeout_ms);
  uint32_t pending = kRecvWrId;
  uint32_t scnt = 0;
  uint32_t rcnt = 0;
  uint32_t posted = 0;
  const auto post_send = [&]() -> Expected<void, std::string> {
    if (auto ok = q.peer.post_send(q.qp.info.qpn, send); !ok) return Unexpected(ok.error());
    ++posted;
    pending |= kSendWrId;
    return {};
  };
  if (config.role == Role::kClient) {
    if (auto ok = post_send(); !ok) return Unexpected(ok.error());
  }
  while (scnt < config.iters || rcnt < config.iters) {
    if (Clock::now() >= deadline) {
      return Unexpected("pingpong traffic: " + std::to_string(scnt) + " sends and " +
                        std::to_string(rcnt) + " receives of " + std::to_string(config.iters) +
                        " completed within " + std::to_string(config.timeout_ms) + " ms");
    }
    auto done = poll_tool_qp(q.peer, q.qp, 16, 500);
    if (!done) return Unexpected("pingpong traffic: " + done.error());
    for (const auto& c : *done) {
      if (c.wr_id == kRecvWrId) {
        ++rcnt;
        if (q.recvs_posted < config.iters) {
          if (auto ok = q.post_recv(config.size); !ok) return Unexpected(ok.error());
        }
      } else {
        ++scnt;
      }
      pending &= ~static_cast<uint32_t>(c.wr_id);
      if (posted < config.iters && pending == 0) {
        pending = kRecvWrId;
        if (auto ok = post_send(); !ok) return Unexpected(ok.error());
      }
    }
  }
  TrafficReport report;
  report.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  report.messages_sent = scnt;
  report.messages_received = rcnt;
  report.bytes = uint64_t{config.size} * (scnt + rcnt);
  return report;
}

}  // namespace

Expected<TrafficReport, std::string> run_pingpong_session(io::Link& link, ControlSocket& control,
                                                          const PingpongConfig& config,
                                                          const ToolPeerOptions& identity) {
  if (config.size == 0 || config.iters == 0)
    return Unexpected(std::string("size and iters must be > 0"));
  LinkedPeer peer(link, identity.peer_identity());
  auto created = create_tool_qp(peer, std::max<uint32_t>(config.size, 64));
  if (!created) return Unexpected(created.error());
  PingpongQp q{peer, *created};
  // Like the tool: receives are posted before the exchange, so the first SEND finds one.
  while (q.recvs_posted < std::min(config.iters, kMaxPostedRecvs)) {
    if (auto ok = q.post_recv(config.size); !ok) return Unexpected(ok.error());
  }
  const ToolQp& qp = *created;
  const PingpongDest mine{.lid = 0, .qpn = qp.info.qpn, .psn = qp.psn, .gid = qp.gid};
  const auto connect = [&](const PingpongDest& tool) {
    return connect_tool_qp(peer, qp, identity.peer_mac,
                           {.qpn = tool.qpn,
                            .psn = tool.psn,
                            .gid = tool.gid,
                            .mtu = config.mtu,
                            .max_rd_atomic = 1,
                            .max_dest_rd_atomic = 1});
  };
  if (auto ok = trade_destinations(control, config.role, mine, connect); !ok) {
    return Unexpected(ok.error());
  }
  return mirror_traffic(q, config);
}

}  // namespace mr::peer
