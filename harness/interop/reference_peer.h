// File: reference_peer.h
//
// The reference side of an interop cell: a ReferenceBackend of its own on a Link (the
// impaired, captured libpcap link on the guest's tap), its data path on a thread, driven
// with typed calls. A fresh one per cell, so each cell starts from a fresh device whose
// keys and QPN derive from the cell's seed, with the mutants the run asked for.
//
//   ReferencePeer ref(link, {.mac = tester_mac, .ipv4 = tester_ip, .seed = 7});
//   ref.setup(4096);  ref.connect(args);  ref.post_send(wr);
#pragma once

#include <memory>

#include "harness/agent/data_path_thread.h"
#include "harness/agent/reference_backend.h"
#include "harness/interop/peer.h"
#include "reference/io/clock.h"
#include "reference/io/link.h"

namespace mr::interop {

class ReferencePeer final : public Peer {
 public:
  // `link` must outlive the peer.
  ReferencePeer(io::Link& link, agent::ReferenceBackendOptions options);
  ~ReferencePeer() override;
  ReferencePeer(const ReferencePeer&) = delete;
  ReferencePeer& operator=(const ReferencePeer&) = delete;

  Result<void> setup(uint64_t buffer_bytes) override;
  uint32_t qpn() const override { return qpn_; }
  const PeerBuffer& buffer() const override { return buffer_; }
  Result<void> connect(const ConnectArgs& args) override;
  Result<void> post_send(const transport::SendWr& wr) override;
  Result<void> post_recv(uint64_t wr_id, uint64_t offset, uint32_t length) override;
  Result<std::vector<CompletionRecord>> poll(uint32_t timeout_ms) override;
  Result<std::vector<uint8_t>> read(uint64_t offset, uint64_t length) override;
  Result<void> write(uint64_t offset, const std::vector<uint8_t>& bytes) override;
  Result<void> teardown() override;

 private:
  io::SystemClock clock_;
  std::unique_ptr<agent::ReferenceBackend> backend_;
  std::unique_ptr<agent::DataPathThread> pump_;  // stopped before the backend goes
  uint32_t pd_ = 0;
  uint32_t cq_ = 0;
  uint32_t qpn_ = 0;
  PeerBuffer buffer_;
};

}  // namespace mr::interop
