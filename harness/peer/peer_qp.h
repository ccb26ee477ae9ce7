// File: peer_qp.h
//
// The reference side of an interop run (issue #9): a reference transport Device behind a
// ReferenceBackend on a Link (a libpcap link on the guest's tap, usually through an
// io::RecordingLink), its data path on a thread of its own, and one RC QP with one registered
// buffer that the tools' traffic patterns use. Shaped like the few verbs calls
// ibv_rc_pingpong and perftest make, with errors as values naming the step.
//
//   auto qp = PeerQp::create(link, {.peer_mac = guest_mac}, 2 * 65536);
//   keys.qpn = qp->qpn();  ...exchange...
//   qp->connect({.qpn = tool.qpn, .psn = tool.psn, .gid = tool.gid, .mtu = 1024});
//   qp->post_send(wr);  auto done = qp->poll(16, 1000);
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "harness/agent/data_path_thread.h"
#include "harness/agent/reference_backend.h"
#include "reference/error/expected.h"
#include "reference/io/clock.h"
#include "reference/io/link.h"
#include "reference/wire/address.h"

namespace mr::peer {

struct PeerQpOptions {
  wire::MacAddress mac{{0x02, 0x00, 0x00, 0x00, 0x00, 0x01}};  // the identity played on the tap
  wire::Ipv4Address ip{{198, 18, 0, 1}};
  wire::MacAddress peer_mac{{0x52, 0x54, 0x00, 0x12, 0x34, 0x56}};  // the tool's NIC (no ARP)
  uint64_t seed = 1;  // keys, QPN and PSN derive from it
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

class PeerQp {
 public:
  // A PD, a CQ, a buffer of buffer_bytes registered with every remote access, and an RC QP
  // in INIT. `link` must outlive the PeerQp.
  static Expected<std::unique_ptr<PeerQp>, std::string> create(io::Link& link,
                                                               const PeerQpOptions& options,
                                                               uint64_t buffer_bytes);
  PeerQp(const PeerQp&) = delete;
  PeerQp& operator=(const PeerQp&) = delete;
  ~PeerQp();

  uint32_t qpn() const { return qpn_; }
  uint32_t psn() const { return psn_; }
  wire::Ipv6Address gid() const;  // the IPv4-mapped GID of options.ip (rxe's GID index 1)
  uint32_t lkey() const { return mr_.lkey; }
  uint32_t rkey() const { return mr_.rkey; }
  uint64_t va() const { return mr_.va; }
  uint64_t length() const { return mr_.length; }

  // INIT -> RTR -> RTS towards the tool's QP.
  Expected<void, std::string> connect(const RemoteQp& remote);

  Expected<void, std::string> post_send(const transport::SendWr& wr);
  // A receive of `length` bytes at va() + offset.
  Expected<void, std::string> post_recv(uint64_t wr_id, uint64_t offset, uint32_t length);
  // Waits at most timeout_ms for the first completion; every completion must be a success,
  // else the error names the work request, its opcode and status.
  Expected<std::vector<transport::Completion>, std::string> poll(uint32_t max, uint32_t timeout_ms);
  Expected<std::vector<uint8_t>, std::string> read(uint64_t offset, uint64_t length);
  Expected<void, std::string> write(uint64_t offset, std::vector<uint8_t> bytes);

  agent::ReferenceBackend& backend() { return *backend_; }

 private:
  PeerQp() = default;

  PeerQpOptions options_;
  io::SystemClock clock_;
  std::unique_ptr<agent::ReferenceBackend> backend_;
  std::unique_ptr<agent::DataPathThread> pump_;  // destroyed before the backend
  uint32_t cq_ = 0;
  uint32_t qpn_ = 0;
  uint32_t psn_ = 0;
  agent::MrResult mr_;
};

}  // namespace mr::peer
