// File: device.h
//
// The reference RDMA device: a verbs-shaped control surface (protection domains, memory
// regions, CQs, SRQs, QPs, work requests, completions) over the RC transport engines, and a
// frame-level data path that the harness, a Link, or another Device drives.
//
// Single-threaded and deterministic: nothing happens between calls. The data path is
//   device.receive(frame, now)   a frame from the wire (responder or completer runs)
//   device.advance(now)          requesters transmit, expired timers fire
//   device.take_outbox()         the frames it sent since the last call
//   device.next_deadline()       when advance() next has timer work to do
//
// Usage (two devices back to back):
//   Device a({.mac = ..., .ip = ...}), b(...);
//   ... create_qp / modify_qp / post_recv / post_send ...
//   a.advance(t); for (auto& f : a.take_outbox()) b.receive(f, t);
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "reference/error/expected.h"
#include "reference/memory/memory_table.h"
#include "reference/mutants/mutant.h"
#include "reference/transport/completion_queue.h"
#include "reference/transport/dcqcn_reaction_point.h"
#include "reference/transport/device_counters.h"
#include "reference/transport/packet_factory.h"
#include "reference/transport/qp_context.h"
#include "reference/transport/qp_table.h"
#include "reference/transport/queue_pair.h"
#include "reference/transport/transport_decisions.h"
#include "reference/wire/frame_decoder.h"

namespace mr::transport {

struct DeviceConfig {
  wire::MacAddress mac;
  IpAddress ip = wire::Ipv4Address{};
  std::vector<wire::Ipv6Address> ipv6;  // further addresses (GIDs) the device answers on
  uint64_t seed = 1;                    // keys and QPNs derive from it; log it to reproduce a run
  mutants::MutantSet mutants;
  // Where the device notes which mutants' decisions it read (decision.h); none by default.
  std::shared_ptr<DecisionLog> decision_log;
  bool cnp_notification_point = true;     // DCQCN NP: answer CE marks with CNPs
  uint64_t cnp_min_interval_ns = 50'000;  // T_CNP_MIN_INTERVAL
  bool cnp_reaction_point = true;         // DCQCN RP: CNPs cut the QP's rate (section 13.3)
  DcqcnParameters dcqcn;                  // its line rate (100 Gb/s) and parameters
  // Part II: the MXCAP this device offers at INIT to RTR (none: a base-only device, which
  // drops every TVer 1 packet), and its Ext QPs' timers and windows.
  std::optional<wire::Mxcap> mxcap;
  ext::ExtQpParameters ext;
  // Ports, one per plane of a multi-plane fabric (1 to 16), all with this device's addresses.
  // An Ext QP sprays over them by its EV set; a base QP keeps to one (base_plane()).
  uint8_t planes = 1;  // outside 1 to 16: clamped
};

// A verbs-style error: what failed and why, for the control protocol's error replies.
struct VerbsError {
  std::string message;
};

class Device {
 public:
  explicit Device(DeviceConfig config);
  // Its QPs' EV tables count into counters_ by address: a Device stays where it was made.
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  // --- control (verbs) ---
  memory::MemoryTable& memory() { return memory_; }
  Expected<uint32_t, VerbsError> create_cq(uint32_t depth);
  Expected<uint32_t, VerbsError> create_srq(uint32_t max_wr);
  Expected<uint32_t, VerbsError> create_qp(const QpInitAttributes& init);
  Expected<void, VerbsError> modify_qp(uint32_t qpn, const QpAttributes& attr, uint32_t mask);
  Expected<QpAttributes, VerbsError> query_qp(uint32_t qpn) const;
  Expected<void, VerbsError> destroy_qp(uint32_t qpn);
  Expected<void, VerbsError> post_send(uint32_t qpn, const SendWr& wr);
  Expected<void, VerbsError> post_recv(uint32_t qpn, const RecvWr& wr);
  Expected<void, VerbsError> post_srq_recv(uint32_t srq, const RecvWr& wr);
  Expected<std::vector<Completion>, VerbsError> poll_cq(uint32_t cq, size_t max);
  Expected<void, VerbsError> req_notify_cq(uint32_t cq, bool solicited_only);
  // The completion events the CQ raised since the last call (each arming raises at most one).
  Expected<size_t, VerbsError> take_cq_events(uint32_t cq);

  // --- data path ---
  void receive(std::span<const uint8_t> frame, uint64_t now_ns);
  // Runs the timers due by now_ns, each at its own time when the caller comes late.
  void advance(uint64_t now_ns);
  std::optional<uint64_t> next_deadline() const;
  std::vector<std::vector<uint8_t>> take_outbox();
  // The same, with the plane each frame leaves on in `planes` (index for index).
  std::vector<std::vector<uint8_t>> take_outbox(std::vector<uint8_t>& planes);
  // Gives back frames the caller has finished with (`frames` is left empty): the device builds
  // its next frames in their buffers, so a driver that returns what it takes sends without an
  // allocation per packet.
  void recycle(std::vector<std::vector<uint8_t>>& frames);
  // A plane's port went down or came up: Ext QPs stop using its EVs, and use them again
  // after the hold of section 25 (MR-PF-07, MR-PF-16).
  void set_plane_port(uint8_t plane, bool up, uint64_t now_ns);
  // Management denies (allowed false) or allows one EV of an Ext QP's set (section 25.1):
  // a DENIED entry is never sent on until allowed, which makes it GOOD again; an
  // ASSUMED_BAD entry is left to path failure handling. Returns the entry's state after.
  Expected<ext::EvState, VerbsError> set_ev_allowed(uint32_t qpn, uint16_t ev, bool allowed);
  bool has_work() const;  // unsent packets waiting on a send queue

  // The engines' steps go to `trace` (none when null, the default); it must outlive the device
  // or be unset first.
  void set_step_trace(StepTrace* trace) { step_trace_ = trace; }

  const DeviceCounters& counters() const { return counters_; }
  const DeviceConfig& config() const { return config_; }
  // The plane a base QP's packets leave on: its QPN hashed onto the planes, as a bonded NIC
  // hashes a flow onto one port (a hash, not QPN mod planes: seeded QPNs share low bits).
  uint8_t base_plane(uint32_t qpn) const {
    return static_cast<uint8_t>(((uint64_t{qpn} * 0x9e3779b97f4a7c15ULL) >> 40) % config_.planes);
  }
  const QueuePair* qp(uint32_t qpn) const;

 private:
  QpContext context(QueuePair& qp, uint64_t now_ns);
  bool passes_header_checks(const wire::DecodedRoce& roce);
  bool receive_trimmed(std::span<const uint8_t> frame, uint64_t now_ns);
  QueuePair* admit(const wire::RocePacket& p);
  // Section 19.4 on an admitted packet of an Ext QP: the packet the QP may read (the plain
  // one, or a secure one decrypted), or nullptr when it is discarded unread. `whole` false:
  // a trimmed packet, of which the header block alone is checked.
  const wire::RocePacket* open_secure(QueuePair& qp, std::span<const uint8_t> frame,
                                      const wire::RocePacket& p, bool whole, uint64_t now_ns);
  void deliver(QueuePair& qp, const wire::RocePacket& p, uint64_t now_ns);
  void receive_cnp(const wire::RocePacket& p, uint64_t now_ns);
  // A QP with unsent work whose pacer lets it send at `now_ns`.
  static bool ready_to_send(const QueuePair& qp, uint64_t now_ns);
  void notify_congestion(QueuePair& qp, uint64_t now_ns);
  uint32_t allocate_qpn();
  void note_activity(const QueuePair& qp);
  Expected<void, VerbsError> enter_ext_mode(QueuePair& qp);
  std::optional<wire::Mxcap> offered_mxcap(const QueuePair& qp) const;
  // An Ext QP's parameters: the device's, as the Ext mutants change them. Reading a decision
  // logs that a test reached its mutant, so they are read only where Ext mode is at work.
  ext::ExtQpParameters ext_parameters() const;
  ext::CreditParameters credit_parameters() const;
  ext::TrimParameters trim_parameters() const;
  ext::SecureParameters secure_parameters(const ext::SecurityAssociations& sas) const;
  // An MXH the device drops unanswered (MR-EX-07: another version).
  bool refuses_mxh(const wire::RocePacket& p) const;
  void advance_at(uint64_t now_ns);  // one step of advance(): every timer due at now_ns
  void advance_ext(QueuePair& qp, QpContext& ctx);
  // Section 26.7's receiver for all of the device's credit QPs: credit timeouts, then the
  // paced raise due, sent in the ACK owed or in a CREDIT packet.
  void run_credit(uint64_t now_ns);
  // The earliest deadline, or the earliest after `after` (the catch-up of advance()).
  std::optional<uint64_t> credit_deadline(std::optional<uint64_t> after = std::nullopt) const;
  std::optional<uint64_t> next_deadline_after(std::optional<uint64_t> after) const;

  DeviceConfig config_;
  memory::MemoryTable memory_;
  const TransportDecisions decide_;  // from config_.mutants, before factory_ reads it
  PacketFactory factory_;
  DeviceCounters counters_;
  Outbox outbox_;
  // The frame receive() is working on, decoded in place: its storage is reused frame after
  // frame. receive() is not re-entered (nothing it calls receives).
  wire::DecodedFrame rx_;
  // A secure packet's payload decrypted, and the packet that points at it (open_secure).
  std::vector<uint8_t> rx_plaintext_;
  wire::RocePacket rx_opened_;
  QpTable qps_;  // flat, by QPN: a lookup costs the same at 1 and 10,000 QPs
  // QPs with unsent work or an armed timer: advance() visits only these, so its cost does
  // not grow with idle QPs. Ordered, so that runs are deterministic.
  std::set<uint32_t> active_;
  std::unordered_map<uint32_t, CompletionQueue> cqs_;
  std::unordered_map<uint32_t, RingDeque<RecvWr>> srqs_;
  uint32_t next_cq_ = 1;
  uint32_t next_srq_ = 1;
  uint64_t qpn_state_;
  uint64_t now_ns_ = 0;                // the latest time receive() or advance() was given
  std::array<bool, 16> plane_down_{};  // by plane; all ports start up
  StepTrace* step_trace_ = nullptr;
  // QPs in credit mode (section 26.7), in the order they entered it; one that is gone or left
  // Ext mode is dropped at the next run_credit().
  std::vector<uint32_t> credit_qpns_;
  // Made for the first credit QP (its mutants' switches are read then).
  std::optional<ext::CreditScheduler> credit_scheduler_;
};

}  // namespace mr::transport
