// File: peer.h
//
// One side of an interop cell, whatever the device: a PD, one registered buffer, a CQ and
// one RC QP, connected to the other side's QP, with the few verbs a cell needs. Two
// implementations: ReferenceSide (the reference peer in this process, typed calls) and
// AgentPeer (any device behind the DUT control protocol: the verbs agent in the rxe guest).
// Errors are values that name the step ("modify_qp RTR: EINVAL attrs.path_mtu: ...").
//
//   auto ready = peer.setup(64 * 1024);               // PD, MR, CQ, QP in INIT
//   peer.connect({.remote_qpn = other.qpn(), ...});   // RTR, RTS
//   peer.post_send(wr);  auto done = peer.poll(10'000);
//   peer.teardown();                                   // QP, CQ, MR, PD
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "reference/error/expected.h"
#include "reference/transport/work_request.h"
#include "reference/wire/address.h"

namespace mr::interop {

template <class T>
using Result = Expected<T, std::string>;

struct PeerBuffer {
  uint32_t lkey = 0;
  uint32_t rkey = 0;
  uint64_t va = 0;
  uint64_t length = 0;
};

// What RTR and RTS need about the path and the other side.
struct ConnectArgs {
  uint32_t remote_qpn = 0;
  uint32_t remote_psn = 0;  // the other side's first send PSN: our rq_psn
  uint32_t local_psn = 0;   // our sq_psn
  uint32_t mtu = 1024;
  wire::Ipv4Address remote_ip;
  wire::MacAddress remote_mac;  // used where the device takes it (the reference)
  uint8_t retry_cnt = 7;
  uint8_t rnr_retry = 7;
  uint8_t timeout = 14;  // 4.096 us * 2^14 = 67 ms
};

// A completion as both sides report it: the protocol's names for status and opcode.
struct CompletionRecord {
  uint64_t wr_id = 0;
  std::string status;  // "SUCCESS", "RETRY_EXC_ERR", ...
  std::string opcode;  // "SEND", "RECV", "RDMA_READ", "FETCH_ADD", ...
  uint32_t byte_len = 0;
};

class Peer {
 public:
  virtual ~Peer() = default;
  // A PD, a buffer of `buffer_bytes` with every remote access, a CQ, an RC QP in INIT.
  virtual Result<void> setup(uint64_t buffer_bytes) = 0;
  virtual uint32_t qpn() const = 0;
  virtual const PeerBuffer& buffer() const = 0;
  virtual Result<void> connect(const ConnectArgs& args) = 0;
  // Work requests name addresses in buffer() (sg_list addr = buffer().va + offset).
  virtual Result<void> post_send(const transport::SendWr& wr) = 0;
  virtual Result<void> post_recv(uint64_t wr_id, uint64_t offset, uint32_t length) = 0;
  // Waits at most timeout_ms (<= 10 s) for the first completion; returns what is there.
  virtual Result<std::vector<CompletionRecord>> poll(uint32_t timeout_ms) = 0;
  virtual Result<std::vector<uint8_t>> read(uint64_t offset, uint64_t length) = 0;
  virtual Result<void> write(uint64_t offset, const std::vector<uint8_t>& bytes) = 0;
  // Destroys what setup created, QP first; safe to call after a partial setup.
  virtual Result<void> teardown() = 0;
};

}  // namespace mr::interop
