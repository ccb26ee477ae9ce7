// File: dut_session.h
//
// The device under test a run talks to, chosen by `--dut`, with everything it needs kept
// alive for the run and torn down after it:
//   reference          the embedded reference: in process, in-memory link, virtual clock
//   agent://HOST:PORT  a remote agent over TCP, packets on `iface` (libpcap), real clock
//   verbs:DEVICE       this host's RDMA device: an agent the run starts (LocalAgent), packets
//                      on `iface`, real clock
//   rxe                Linux Soft-RoCE in a QEMU guest (RxeGuest): namespace, tap, agent
// The port is destroyed before the guest or the local agent, so the control connection
// closes first.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "harness/dut/local/local_agent.h"
#include "harness/dut/rxe/rxe_guest.h"
#include "harness/engine/dut_port.h"
#include "harness/engine/pixit.h"
#include "reference/error/expected.h"

namespace mr::dut {

struct DutSpec {
  std::string dut = "reference";
  uint64_t seed = 1;
  std::vector<std::string> mutants;  // reference only
  // agent://
  std::string iface;  // the interface facing the DUT
  std::string token;
  std::string token_file;
  // verbs:DEVICE
  std::string agent_log;  // the local agent's messages ("" = a private temp file)
  // The PIXIT's DUT addresses are checked against the agent's (named with --pixit) or taken
  // from it (the default PIXIT): dut_addresses.h.
  bool pixit_named = false;
  std::string pixit_path;
  // rxe
  std::string rxe_backend = "verbs";  // the agent backend in the guest ("reference": self-test)
  std::string console_log;            // the guest's serial console ("" = a temp file)
};

class DutSession {
 public:
  // `pixit` may change: an agent's DUT addresses replace a default PIXIT's.
  static Expected<std::unique_ptr<DutSession>, std::string> open(const DutSpec& spec,
                                                                 engine::Pixit& pixit);

  using PortFactory =
      std::function<Expected<std::unique_ptr<engine::DutPort>, std::string>(uint64_t seed)>;

  engine::DutPort& port() { return *port_; }
  // A DUT of its own for each run of a test, when this DUT can be multiplied: the embedded
  // reference (same PIXIT and mutants, the run's seed). Empty for a remote DUT, which is
  // one device whose tests run one at a time.
  const PortFactory& fresh_port() const { return fresh_port_; }
  // One line for the run's header: what the DUT is and where.
  const std::string& description() const { return description_; }
  // The DUT addresses taken from its agent into the PIXIT, one line each ("dut.mac ...").
  const std::vector<std::string>& adopted_addresses() const { return adopted_addresses_; }
  // The rxe guest, when the DUT is one.
  const RxeGuest* guest() const { return guest_ ? &*guest_ : nullptr; }

 private:
  static Expected<void, std::string> open_agent(DutSession& s, const DutSpec& spec,
                                                engine::Pixit& pixit, const std::string& host,
                                                uint16_t port, const std::string& token);

  std::optional<RxeGuest> guest_;          // outlives the port
  std::optional<LocalAgent> local_agent_;  // outlives the port
  std::unique_ptr<engine::DutPort> port_;
  PortFactory fresh_port_;
  std::string description_;
  std::vector<std::string> adopted_addresses_;
  uint32_t time_dilation_ = 1;  // the agent's (capabilities time_dilation)
};

}  // namespace mr::dut
