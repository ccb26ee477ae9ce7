// File: reference_peer.h
//
// The one reference peer (issue #19): a reference transport Device driven synchronously on
// its user's clock. The engine's tester QP drives it on the port clock (virtual for the
// embedded DUT, CLOCK_MONOTONIC for a remote one); LinkedPeer (linked_peer.h) puts it on an
// io::Link with a pump thread for the tools' peer and the interop matrix. Each QP comes with
// a CQ of its own and one memory region filled with a seeded pattern (or zeroed), so that
// what a transfer moved can be compared byte for byte on both sides. It is a correct
// endpoint unless its identity names mutants (interop's proof that a cell can fail); the
// engine's tester never does.
//
//   ReferencePeer peer({.mac = tester_mac, .ip = tester_ip, .seed = 7});
//   auto qp = peer.create_qp({.qpn = dut_side_tqpn, .mr_length = 1 << 20});
//   peer.connect(qp->qpn, {.dest_qpn = dut_qpn, .rq_psn = Q, .sq_psn = P, .av = ...});
//   peer.post_send(qp->qpn, wr);
//   peer.advance(now); for (auto& f : peer.take_outbox()) inject(f);
//   if (peer.owns(frame_dqpn)) peer.receive(frame, now);
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "reference/error/expected.h"
#include "reference/mutants/mutant.h"
#include "reference/transport/device.h"

namespace mr::peer {

struct PeerIdentity {
  wire::MacAddress mac;
  wire::Ipv4Address ip;
  std::optional<wire::Ipv6Address> ip6;
  uint64_t seed = 1;           // keys and drawn QPNs derive from it
  mutants::MutantSet mutants;  // none: a correct endpoint (always so for the engine's tester)
  // The MXCAP block the device can offer (spec section 18); none: a base-only device.
  std::optional<wire::Mxcap> mxcap;
};

struct PeerQpSpec {
  transport::QpType type = transport::QpType::kRc;
  // The QPN the DUT's QP is pointed at (the engine chose it); none: drawn from the seed.
  std::optional<uint32_t> qpn;
  uint64_t mr_length = 1 << 20;
  uint64_t va = 0x40000000;
  // The region starts filled with pattern_bytes(*pattern_seed, ...); none: zeroed, as a
  // tool's fresh buffer is (ib_write_lat polls its last byte for the peer's count).
  std::optional<uint64_t> pattern_seed = 1;
  uint32_t cq_depth = 1 << 16;
  uint32_t max_send_wr = 4096;
  uint32_t max_recv_wr = 4096;
};

struct PeerQpInfo {
  uint32_t qpn = 0;
  uint32_t cq = 0;
  uint32_t pd = 0;
  uint32_t lkey = 0;
  uint32_t rkey = 0;
  uint64_t va = 0;
  uint64_t length = 0;
};

// RTR and RTS in one: where the QP sends, what it expects, its timers.
struct PeerPath {
  transport::AddressVector av;
  uint32_t dest_qpn = 0;
  uint32_t rq_psn = 0;  // the DUT's first request PSN
  uint32_t sq_psn = 0;  // our first request PSN
  uint32_t mtu = 1024;
  uint16_t pkey = 0xffff;
  uint8_t timeout = 14;
  uint8_t retry_cnt = 7;
  uint8_t rnr_retry = 7;
  uint8_t min_rnr_timer = 12;
  uint8_t max_rd_atomic = 16;
  uint8_t max_dest_rd_atomic = 16;
  // Part II at INIT to RTR: the peer's block, and the one this QP offers it (none: the
  // device's own). With both blocks allowing it the QP runs in extension mode.
  std::optional<wire::Mxcap> peer_mxcap;
  std::optional<wire::Mxcap> offered_mxcap;
  // Secure mode's keys (section 19.4), this end's: it sends with `tx`, opens with `rx`.
  std::optional<transport::ext::SecurityAssociations> secure_sa;
};

// The address vector of a path from `self` to a peer whose MAC is known (no ARP): the
// tools' peer and interop's reference side, which know the other side's MAC in advance.
transport::AddressVector address_vector(const PeerIdentity& self, const wire::MacAddress& dmac,
                                        const wire::Ipv4Address& dip);

class ReferencePeer {
 public:
  explicit ReferencePeer(const PeerIdentity& identity);

  Expected<PeerQpInfo, std::string> create_qp(const PeerQpSpec& spec);
  // RESET -> INIT: receives may be posted from here on (connect does it when still RESET).
  Expected<void, std::string> to_init(uint32_t qpn, uint16_t pkey = 0xffff);
  // (INIT ->) RTR -> RTS: the one place the tester's QP attributes are built.
  Expected<void, std::string> connect(uint32_t qpn, const PeerPath& path);
  Expected<void, std::string> destroy_qp(uint32_t qpn);
  // A later epoch's keys for a secure QP (section 19.4), as the management plane installs them.
  Expected<void, std::string> install_keys(uint32_t qpn,
                                           const transport::ext::SecurityAssociations& keys);
  Expected<void, std::string> post_send(uint32_t qpn, const transport::SendWr& wr);
  Expected<void, std::string> post_recv(uint32_t qpn, const transport::RecvWr& wr);
  // At most `max` completions of the QP's CQ, oldest first.
  std::vector<transport::Completion> poll(uint32_t qpn, size_t max);
  Expected<std::vector<uint8_t>, std::string> read(uint32_t qpn, uint64_t offset, uint64_t length);
  Expected<void, std::string> write(uint32_t qpn, uint64_t offset, std::span<const uint8_t> data);
  // A crafted request went out in this QP's name with these PSNs: the QP's next request PSN
  // follows it (only while the QP has nothing of its own in flight).
  void note_crafted_request(uint32_t qpn, uint32_t last_psn);

  // True when frames to this destination QPN are ours.
  bool owns(uint32_t dqpn) const { return qps_.contains(dqpn); }
  const std::map<uint32_t, PeerQpInfo>& qps() const { return qps_; }
  const transport::QueuePair* qp(uint32_t qpn) const { return device_.qp(qpn); }
  // Work posted and not yet completed on every QP (sends and their acknowledgements).
  bool busy() const;
  // Unsent packets waiting on a send queue: advance() has something to do now.
  bool has_work() const { return device_.has_work(); }

  // --- data path, as transport::Device's ---
  void receive(std::span<const uint8_t> frame, uint64_t now_ns) { device_.receive(frame, now_ns); }
  void advance(uint64_t now_ns) { device_.advance(now_ns); }
  std::optional<uint64_t> next_deadline() const { return device_.next_deadline(); }
  std::vector<std::vector<uint8_t>> take_outbox() { return device_.take_outbox(); }
  void recycle(std::vector<std::vector<uint8_t>>& frames) { device_.recycle(frames); }

 private:
  const PeerQpInfo* find(uint32_t qpn) const;

  transport::Device device_;
  std::map<uint32_t, PeerQpInfo> qps_;  // by QPN
};

}  // namespace mr::peer
