// File: reference_backend.h
//
// The reference backend: a transport::Device behind the DutBackend interface, with its data
// path on an io::Link. An io::Node on the link answers ARP, neighbour discovery and ping
// for the device's addresses and hands RoCE frames to the device.
//
// Threads: the Device and the Node are not thread-safe, so every control op and every
// data-path step takes one lock (mutex_). service() receives from the link *outside* that
// lock (under receive_mutex_, so that only one thread waits on the link), so a control op
// never waits behind a blocked receive. After every control op that can make the device
// transmit, the op itself runs the device's requesters and flushes its frames.
//
// Two ways to drive the data path:
//   - a real clock (the agent): a DataPathThread calls service() in a loop, and a waiting
//     poll_cq leaves the link to it (a control thread that also waited on the link lost the
//     race for receive_mutex_ to the thread's loop for tens of milliseconds: a DUT's retry
//     timer fired while the harness waited for a completion); without the thread, poll_cq
//     calls service() itself while it waits;
//   - a VirtualClock (the in-process DUT): whoever owns the clock calls service(0) after
//     moving time to next_deadline_ns() or to the link's next delivery. Nothing waits.
//
//   io::VirtualClock clock;  io::MemoryLinkPair pair(clock);
//   ReferenceBackend dut(pair.b(), clock, {.mac = ..., .ipv4 = ..., .seed = 7});
//   auto pd = dut.create_pd();  ...  dut.service(0);
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "harness/agent/dut_backend.h"
#include "harness/agent/object_registry.h"
#include "harness/agent/queued_link.h"
#include "reference/io/clock.h"
#include "reference/io/link.h"
#include "reference/io/node.h"
#include "reference/mutants/mutant.h"
#include "reference/transport/device.h"
#include "reference/wire/mxcap.h"

namespace mr::agent {

struct ReferenceBackendOptions {
  wire::MacAddress mac;
  wire::Ipv4Address ipv4;
  std::vector<wire::Ipv6Address> ipv6_global;  // besides the link-local address of `mac`
  uint64_t seed = 1;  // keys and QPNs derive from it: log it to reproduce a run
  mutants::MutantSet mutants;
  // Notes which mutants' decisions the device read, across device resets (decision.h).
  std::shared_ptr<transport::DecisionLog> decision_log;
  // The dilation of the clock the backend is given (agent --time-dilation), for capabilities.
  uint32_t time_dilation = 1;
};

class ReferenceBackend final : public DutBackend {
 public:
  // `link` and `clock` must outlive the backend.
  ReferenceBackend(io::Link& link, const io::Clock& clock, ReferenceBackendOptions options);
  ReferenceBackend(const ReferenceBackend&) = delete;
  ReferenceBackend& operator=(const ReferenceBackend&) = delete;
  ~ReferenceBackend() override;

  // --- data path ---
  // One step: waits at most max_wait_ns (less when a timer is due sooner) for frames, hands
  // them to the node and the device, runs timers and requesters, sends what they produced.
  // Returns how many frames it received.
  size_t service(uint64_t max_wait_ns);
  // Whether a DataPathThread runs service() (data_path_thread.h sets it for its lifetime).
  void set_served_by_thread(bool served) { served_by_thread_.store(served); }
  // When the device next has timer work (retransmission, RNR wait).
  std::optional<uint64_t> next_deadline_ns() const;
  // Seeds the neighbour cache (a test, or a peer whose MAC is known in advance).
  void add_neighbor(const wire::Ipv4Address& ip, const wire::MacAddress& mac);
  void add_neighbor(const wire::Ipv6Address& ip, const wire::MacAddress& mac);
  uint64_t seed() const { return options_.seed; }

  // --- DutBackend ---
  Result<Capabilities> capabilities() override;
  Result<uint32_t> create_pd() override;
  Result<MrResult> reg_mr(const RegMrArgs& args) override;
  Result<void> dereg_mr(uint32_t lkey) override;
  Result<uint32_t> create_cq(uint32_t depth) override;
  Result<uint32_t> create_srq(uint32_t max_wr) override;
  Result<uint32_t> create_qp(const CreateQpArgs& args) override;
  Result<void> modify_qp(const ModifyQpArgs& args) override;
  Result<transport::QpAttributes> query_qp(uint32_t qpn) override;
  Result<void> post_send(uint32_t qpn, const transport::SendWr& wr) override;
  Result<void> post_recv(uint32_t qpn, const transport::RecvWr& wr) override;
  Result<void> post_srq_recv(uint32_t srq, const transport::RecvWr& wr) override;
  Result<std::vector<transport::Completion>> poll_cq(const PollCqArgs& args) override;
  Result<void> req_notify_cq(uint32_t cq, bool solicited_only) override;
  Result<uint32_t> get_cq_events(uint32_t cq, uint32_t timeout_ms) override;
  Result<std::vector<uint8_t>> read_mem(const MemArgs& args) override;
  Result<void> write_mem(const MemArgs& args) override;
  Result<std::vector<Counter>> counters() override;
  Result<void> destroy(ObjectKind kind, uint32_t handle) override;
  Result<void> reset() override;
  Result<void> set_port(uint8_t plane, bool up) override;
  Result<transport::ext::EvState> set_ev_state(uint32_t qpn, uint16_t ev, bool allowed) override;
  Result<void> set_mutants(const std::vector<std::string>& names) override;

 private:
  // Everything below runs with mutex_ held.
  void recreate_device();
  void pump_locked();
  Result<transport::AddressVector> resolve_av(const AvArgs& av) const;
  // A waiting request (poll_cq, get_cq_event): runs `attempt(last)` with mutex_ held until it
  // returns a reply; between attempts, receives frames for up to 1 ms. `last` is true once
  // timeout_ms has passed, or at once on a virtual clock (its owner advances time, so waiting
  // here would not). Defined in the .cpp, its only user.
  template <typename Reply, typename Attempt>
  Reply wait_for(uint32_t timeout_ms, Attempt attempt);

  io::Link& link_;
  const io::Clock& clock_;
  ReferenceBackendOptions options_;

  std::mutex receive_mutex_;  // one thread at a time waits on link_
  std::atomic<bool> served_by_thread_{false};
  std::vector<io::Frame> burst_;

  mutable std::mutex mutex_;  // the device, the node, the registry, queued_
  QueuedLink queued_;
  io::Node node_;
  std::unique_ptr<transport::Device> device_;
  ObjectRegistry objects_;
};

// The PICS features the reference claims (those reference.pics.json sets to true).
std::vector<std::string> reference_pics_features();
// The MXCAP block the reference offers its peers (spec section 18): the Part II features it
// implements and will run when the peer's block asks for them too.
wire::Mxcap reference_mxcap();
// Section 22.2: the messages each Ext QP of the reference tracks ahead of its cumulative PSN
// (capabilities limits.max_ext_ooo_messages), a quarter of its window of 1,024 PSNs, as a NIC
// with a fixed table of message contexts has; the tester's QPs have no such limit.
inline constexpr uint32_t kReferenceExtOooMessages = 256;

}  // namespace mr::agent
