// File: tool_qp.h
//
// What a tool's session (ibv_rc_pingpong, perftest) needs on a LinkedPeer: one RC QP with
// one zeroed buffer, a PSN drawn from the seed (as the tools draw theirs with lrand48), the
// IPv4-mapped GID the tool is given (rxe's GID index 1), and the path towards the tool's QP
// built from the GID it sent back. Its polls follow all_succeeded (linked_peer.h).
//
//   LinkedPeer peer(link, identity.peer_identity());
//   auto qp = create_tool_qp(peer, 2 * 65536);        // keys.qpn = qp->info.qpn ...
//   connect_tool_qp(peer, *qp, identity.peer_mac, {.qpn = tool.qpn, .psn = tool.psn, ...});
//   auto done = poll_tool_qp(peer, *qp, 16, 1000);
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/peer/linked_peer.h"
#include "reference/error/expected.h"
#include "reference/wire/address.h"

namespace mr::peer {

struct ToolPeerOptions {
  wire::MacAddress mac{{0x02, 0x00, 0x00, 0x00, 0x00, 0x01}};  // the identity played on the tap
  wire::Ipv4Address ip{{198, 18, 0, 1}};
  wire::MacAddress peer_mac{{0x52, 0x54, 0x00, 0x12, 0x34, 0x56}};  // the tool's NIC (no ARP)
  uint64_t seed = 1;  // keys, QPN and PSN derive from it
  PeerIdentity peer_identity() const {
    return {.mac = mac, .ip = ip, .ip6 = {}, .seed = seed, .mutants = {}};
  }
};

// What the tool told us about its QP, plus what both sides agreed on.
struct RemoteQp {
  uint32_t qpn = 0;
  uint32_t psn = 0;
  wire::Ipv6Address gid;
  uint32_t mtu = 1024;
  uint8_t max_rd_atomic = 16;       // our outstanding READ/ATOMIC as requester
  uint8_t max_dest_rd_atomic = 16;  // what we accept as responder
};

struct ToolQp {
  PeerQpInfo info;  // QPN (drawn from the seed), keys, buffer
  uint32_t psn = 0;
  wire::Ipv6Address gid;
};

// A PD, a CQ, a zeroed buffer of buffer_bytes with every remote access, an RC QP.
Expected<ToolQp, std::string> create_tool_qp(LinkedPeer& peer, uint64_t buffer_bytes);
// INIT -> RTR -> RTS towards the tool's QP, whose GID must be IPv4-mapped.
Expected<void, std::string> connect_tool_qp(LinkedPeer& peer, const ToolQp& qp,
                                            const wire::MacAddress& tool_mac,
                                            const RemoteQp& remote);
// A receive of `length` bytes at the buffer's va + offset.
Expected<void, std::string> post_tool_recv(LinkedPeer& peer, const ToolQp& qp, uint64_t wr_id,
                                           uint64_t offset, uint32_t length);
// Waits at most timeout_ms for the first completion; all must be successes.
Expected<std::vector<transport::Completion>, std::string> poll_tool_qp(LinkedPeer& peer,
                                                                       const ToolQp& qp,
                                                                       uint32_t max,
                                                                       uint32_t timeout_ms);

}  // namespace mr::peer
