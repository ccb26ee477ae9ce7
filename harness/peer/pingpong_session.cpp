#include "harness/peer/pingpong_session.h"

#include <algorithm>
#include <chrono>

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

}  // namespace

Expected<TrafficReport, std::string> run_pingpong_session(io::Link& link, ControlSocket& control,
                                                          const PingpongConfig& config,
                                                          const ToolPeerOptions& identity) {
  if (config.size == 0 || config.iters == 0)
    return Unexpected(std::string("size and iters must be > 0"));
  LinkedPeer peer(link, identity.peer_identity());
  auto created = create_tool_qp(peer, std::max<uint32_t>(config.size, 64));
  if (!created) return Unexpected(created.error());
  const ToolQp& qp = *created;
  // Like the tool: receives are posted before the exchange, so the first SEND finds one.
  uint32_t recvs_posted = 0;
  const uint32_t initial = std::min(config.iters, kMaxPostedRecvs);
  for (; recvs_posted < initial; ++recvs_posted) {
    if (auto ok = post_tool_recv(peer, qp, kRecvWrId, 0, config.size); !ok)
      return Unexpected(ok.error());
  }
  const PingpongDest mine{.lid = 0, .qpn = qp.info.qpn, .psn = qp.psn, .gid = qp.gid};
  PingpongDest tool;
  const auto connect = [&] {
    return connect_tool_qp(peer, qp, identity.peer_mac,
                           {.qpn = tool.qpn,
                            .psn = tool.psn,
                            .gid = tool.gid,
                            .mtu = config.mtu,
                            .max_rd_atomic = 1,
                            .max_dest_rd_atomic = 1});
  };
  const auto read_tool = [&]() -> Expected<void, std::string> {
    auto bytes = control.read_exact(kPingpongMessageSize, kExchangeMs, "ibv_rc_pingpong message");
    if (!bytes) return Unexpected(bytes.error());
    auto parsed = parse_pingpong_message(*bytes);
    if (!parsed) return Unexpected(parsed.error());
    tool = *parsed;
    return {};
  };
  const std::string message = format_pingpong_message(mine);
  if (config.role == Role::kServer) {
    if (auto ok = read_tool(); !ok) return Unexpected(ok.error());
    if (auto ok = add_context(connect(), "connecting the QP"); !ok) return Unexpected(ok.error());
    if (auto ok = control.write_all(message, kExchangeMs, "pingpong message"); !ok) {
      return Unexpected(ok.error());
    }
    // The client's "done": its QP is connected and its first SEND may follow.
    if (auto done = control.read_exact(kPingpongDone.size(), kExchangeMs, "\"done\""); !done) {
      return Unexpected(done.error());
    }
  } else {
    if (auto ok = control.write_all(message, kExchangeMs, "pingpong message"); !ok) {
      return Unexpected(ok.error());
    }
    if (auto ok = read_tool(); !ok) return Unexpected(ok.error());
    if (auto ok = control.write_all(kPingpongDone, kExchangeMs, "\"done\""); !ok) {
      return Unexpected(ok.error());
    }
    if (auto ok = add_context(connect(), "connecting the QP"); !ok) return Unexpected(ok.error());
  }

  // The tool's loop, mirrored: a send goes out once the previous send completed and the
  // peer's message arrived; the client starts.
  transport::SendWr send;
  send.wr_id = kSendWrId;
  send.opcode = transport::SendOpcode::kSend;
  send.sg_list.push_back({.addr = qp.info.va, .length = config.size, .lkey = qp.info.lkey});
  TrafficReport report;
  const auto start = Clock::now();
  const auto deadline = start + std::chrono::milliseconds(config.timeout_ms);
  uint32_t pending = kRecvWrId;
  uint32_t scnt = 0;
  uint32_t rcnt = 0;
  uint32_t posted = 0;
  if (config.role == Role::kClient) {
    if (auto ok = peer.post_send(qp.info.qpn, send); !ok) return Unexpected(ok.error());
    ++posted;
    pending |= kSendWrId;
  }
  while (scnt < config.iters || rcnt < config.iters) {
    if (Clock::now() >= deadline) {
      return Unexpected("pingpong traffic: " + std::to_string(scnt) + " sends and " +
                        std::to_string(rcnt) + " receives of " + std::to_string(config.iters) +
                        " completed within " + std::to_string(config.timeout_ms) + " ms");
    }
    auto done = poll_tool_qp(peer, qp, 16, 500);
    if (!done) return Unexpected("pingpong traffic: " + done.error());
    for (const auto& c : *done) {
      if (c.wr_id == kRecvWrId) {
        ++rcnt;
        if (recvs_posted < config.iters) {
          if (auto ok = post_tool_recv(peer, qp, kRecvWrId, 0, config.size); !ok)
            return Unexpected(ok.error());
          ++recvs_posted;
        }
      } else {
        ++scnt;
      }
      pending &= ~static_cast<uint32_t>(c.wr_id);
      if (posted < config.iters && pending == 0) {
        if (auto ok = peer.post_send(qp.info.qpn, send); !ok) return Unexpected(ok.error());
        ++posted;
        pending = kRecvWrId | kSendWrId;
      }
    }
  }
  report.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  report.messages_sent = scnt;
  report.messages_received = rcnt;
  report.bytes = uint64_t{config.size} * (scnt + rcnt);
  return report;
}

}  // namespace mr::peer
