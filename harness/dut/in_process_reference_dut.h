// File: in_process_reference_dut.h
//
// The default device under test: a reference device inside the harness process, driven
// through the DUT control protocol's dispatcher (no socket) and wired to the tester over an
// in-memory link on a virtual clock, so a run needs no root, no network and no waiting,
// and is deterministic for a given seed.
//
// The harness owns time: it injects frames on tester_link(), moves clock() to
// next_event_ns(), and calls service() so the DUT handles what has arrived and runs its
// timers; what the DUT sent is then receivable on tester_link().
//
//   InProcessReferenceDut dut({.seed = 7});
//   auto pd = dut.control().call("create_pd");
//   dut.tester_link().send_burst(frames);
//   if (auto t = dut.next_event_ns()) dut.clock().set(*t);
//   dut.service();
//   size_t n = dut.tester_link().receive_burst(out, 0);
#pragma once

#include <cstdint>
#include <optional>

#include "harness/agent/reference_backend.h"
#include "harness/agent/request_dispatcher.h"
#include "harness/dut/dut_control.h"
#include "reference/io/clock.h"
#include "reference/io/memory_link.h"

namespace mr::dut {

struct InProcessDutOptions {
  wire::MacAddress mac = {{0x02, 0x00, 0x00, 0x00, 0x00, 0x02}};
  wire::Ipv4Address ipv4 = {{198, 18, 0, 2}};
  uint64_t seed = 1;
  mutants::MutantSet mutants;
  io::MemoryLinkOptions link;
  uint64_t start_ns = 1'000'000;
};

class InProcessReferenceDut {
 public:
  explicit InProcessReferenceDut(InProcessDutOptions options = {});
  InProcessReferenceDut(const InProcessReferenceDut&) = delete;
  InProcessReferenceDut& operator=(const InProcessReferenceDut&) = delete;

  DutControl& control() { return control_; }
  // The tester's end of the link (the DUT has the other end).
  io::Link& tester_link() { return pair_.a(); }
  io::MemoryLinkPair& link_pair() { return pair_; }
  io::VirtualClock& clock() { return clock_; }
  agent::ReferenceBackend& backend() { return backend_; }

  // Lets the DUT handle every frame delivered by now and run its due timers.
  size_t service() { return backend_.service(0); }
  // The next moment something happens: a frame arrives (either way) or a DUT timer is due.
  std::optional<uint64_t> next_event_ns() const;

 private:
  io::VirtualClock clock_;
  io::MemoryLinkPair pair_;
  agent::ReferenceBackend backend_;
  agent::RequestDispatcher dispatcher_;
  DutControl control_;
};

}  // namespace mr::dut
