// File: reference_side.h
//
// The reference side of an interop cell: interop::Peer over a peer::LinkedPeer (the one
// reference peer, issue #19) on the cell's impaired, captured link. A fresh one per cell, so
// each cell starts from a fresh device whose keys and QPN derive from the cell's seed, with
// the mutants the run asked for (PeerIdentity::mutants). QP set-up and the RTR/RTS
// attributes are peer::ReferencePeer's; this file only maps the interop vocabulary onto it.
//
//   ReferenceSide ref(link, {.mac = tester_mac, .ip = tester_ip, .seed = 7});
//   ref.setup(4096);  ref.connect(args);  ref.post_send(wr);
#pragma once

#include "harness/interop/peer.h"
#include "harness/peer/linked_peer.h"
#include "reference/io/link.h"

namespace mr::interop {

class ReferenceSide final : public Peer {
 public:
  // `link` must outlive the side.
  ReferenceSide(io::Link& link, const peer::PeerIdentity& identity) : peer_(link, identity) {}

  Result<void> setup(uint64_t buffer_bytes) override;
  uint32_t qpn() const override { return qp_.qpn; }
  const PeerBuffer& buffer() const override { return buffer_; }
  Result<void> connect(const ConnectArgs& args) override;
  Result<void> post_send(const transport::SendWr& wr) override;
  Result<void> post_recv(uint64_t wr_id, uint64_t offset, uint32_t length) override;
  Result<std::vector<CompletionRecord>> poll(uint32_t timeout_ms) override;
  Result<std::vector<uint8_t>> read(uint64_t offset, uint64_t length) override;
  Result<void> write(uint64_t offset, const std::vector<uint8_t>& bytes) override;
  Result<void> teardown() override;

 private:
  peer::LinkedPeer peer_;
  peer::PeerQpInfo qp_;
  PeerBuffer buffer_;
};

}  // namespace mr::interop
