// File: embedded_reference_dut.h
//
// The reference device inside the harness process: a ReferenceBackend behind the request
// dispatcher a remote agent runs (so control replies are byte for byte those of the TCP
// agent), its packets on an in-memory link pair, everything on a virtual clock. No root, no
// network, deterministic for a given seed. The one embedded DUT: EmbeddedReferencePort is
// the engine's port onto it; tests of the control protocol drive it through control().
//
// The owner owns time: it injects frames on tester_link(), moves clock() to
// next_event_ns(), and calls service() so the device handles what arrived and runs its
// timers; what the device sent is then receivable on tester_link().
//
//   EmbeddedReferenceDut dut({.seed = 7});
//   auto pd = dut.control().call("create_pd");
//   dut.tester_link().send_burst(frames);
//   if (auto t = dut.next_event_ns()) dut.clock().set(*t);
//   dut.service();
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "harness/agent/reference_backend.h"
#include "harness/agent/request_dispatcher.h"
#include "harness/dut/dut_control.h"
#include "reference/io/clock.h"
#include "reference/io/memory_link.h"
#include "reference/transport/decision.h"

namespace mr::dut {

struct EmbeddedDutOptions {
  wire::MacAddress mac = {{0x02, 0x00, 0x00, 0x00, 0x00, 0x02}};
  wire::Ipv4Address ipv4 = {{198, 18, 0, 2}};
  std::optional<wire::Ipv6Address> ipv6;  // a global address besides the link-local one
  uint64_t seed = 1;
  mutants::MutantSet mutants;
  std::shared_ptr<transport::DecisionLog> decision_log;  // where the device notes its reads
  io::MemoryLinkOptions link;
  uint64_t start_ns = 1'000'000;
  // The tester's addresses, known to the device as a management plane would set them.
  std::vector<std::pair<wire::Ipv4Address, wire::MacAddress>> neighbors4;
  std::vector<std::pair<wire::Ipv6Address, wire::MacAddress>> neighbors6;
};

class EmbeddedReferenceDut {
 public:
  explicit EmbeddedReferenceDut(const EmbeddedDutOptions& options = {});
  EmbeddedReferenceDut(const EmbeddedReferenceDut&) = delete;
  EmbeddedReferenceDut& operator=(const EmbeddedReferenceDut&) = delete;

  // The control protocol as a client speaks it: JSON text lines through the dispatcher.
  DutControl& control() { return control_; }
  agent::RequestDispatcher& dispatcher() { return dispatcher_; }
  // The tester's end of the link (the device has the other end).
  io::Link& tester_link() { return pair_.a(); }
  io::MemoryLinkPair& link_pair() { return pair_; }
  io::VirtualClock& clock() { return clock_; }
  agent::ReferenceBackend& backend() { return backend_; }

  // Lets the device handle every frame delivered by now and run its due timers.
  size_t service() { return backend_.service(0); }
  // The next moment something happens: a frame arrives (either way) or a device timer is due.
  std::optional<uint64_t> next_event_ns() const;

 private:
  io::VirtualClock clock_;
  io::MemoryLinkPair pair_;
  agent::ReferenceBackend backend_;
  agent::RequestDispatcher dispatcher_;
  DutControl control_;
};

}  // namespace mr::dut
