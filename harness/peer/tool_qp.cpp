#include "harness/peer/tool_qp.h"

#include "reference/io/gid_table.h"

namespace mr::peer {
namespace {

constexpr uint32_t kCqDepth = 16384;
constexpr uint32_t kQueueDepth = 4096;

}  // namespace

Expected<ToolQp, std::string> create_tool_qp(LinkedPeer& peer, uint64_t buffer_bytes) {
  auto info = peer.create_qp({.qpn = std::nullopt,
                              .mr_length = buffer_bytes,
                              .pattern_seed = std::nullopt,
                              .cq_depth = kCqDepth,
                              .max_send_wr = kQueueDepth,
                              .max_recv_wr = kQueueDepth});
  if (!info) return Unexpected(info.error());
  // In INIT at once: the tools' sessions post receives before they connect.
  if (auto ok = peer.with_peer([&](ReferencePeer& p) { return p.to_init(info->qpn); }); !ok)
    return Unexpected(ok.error());
  const PeerIdentity& id = peer.identity();
  // A PSN of our own from the seed, as the tools draw theirs at random (lrand48).
  const auto psn = static_cast<uint32_t>((id.seed * 0x9e3779b97f4a7c15ULL) >> 40) & 0xffffff;
  return ToolQp{.info = *info, .psn = psn, .gid = io::ipv4_mapped(id.ip)};
}

Expected<void, std::string> connect_tool_qp(LinkedPeer& peer, const ToolQp& qp,
                                            const wire::MacAddress& tool_mac,
                                            const RemoteQp& remote) {
  const auto dip = io::ipv4_from_mapped(remote.gid);
  if (!dip) {
    return Unexpected("the tool's GID " + remote.gid.to_string() +
                      " is not IPv4-mapped: run the tool with GID index 1 (-g 1 / -x 1)");
  }
  return peer.connect(qp.info.qpn, {.av = address_vector(peer.identity(), tool_mac, *dip),
                                    .dest_qpn = remote.qpn,
                                    .rq_psn = remote.psn,
                                    .sq_psn = qp.psn,
                                    .mtu = remote.mtu,
                                    .max_rd_atomic = remote.max_rd_atomic,
                                    .max_dest_rd_atomic = remote.max_dest_rd_atomic});
}

Expected<void, std::string> post_tool_recv(LinkedPeer& peer, const ToolQp& qp, uint64_t wr_id,
                                           uint64_t offset, uint32_t length) {
  transport::RecvWr wr;
  wr.wr_id = wr_id;
  wr.sg_list.push_back({.addr = qp.info.va + offset, .length = length, .lkey = qp.info.lkey});
  return peer.post_recv(qp.info.qpn, wr);
}

Expected<std::vector<transport::Completion>, std::string> poll_tool_qp(LinkedPeer& peer,
                                                                       const ToolQp& qp,
                                                                       uint32_t max,
                                                                       uint32_t timeout_ms) {
  return all_succeeded(peer.poll(qp.info.qpn, max, timeout_ms));
}

}  // namespace mr::peer
