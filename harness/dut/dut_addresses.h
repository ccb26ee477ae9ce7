// File: dut_addresses.h
//
// The DUT's addresses in the PIXIT against the ones its agent reports (`capabilities`: mac,
// ips). A PIXIT the user named (--pixit) must describe the DUT: a mismatch is refused with
// both values named, before any test runs, never run against silently. A PIXIT chosen by
// the DUT's kind (the default) describes the bed's timing, not this device: it takes the
// agent's addresses.
//
//   auto notes = adopt_dut_addresses(pixit, caps, {.pixit_named = false, ...});
//   // notes: {"dut.mac 52:54:00:12:34:56 (from the agent)", ...}
#pragma once

#include <string>
#include <vector>

#include "harness/engine/pixit.h"
#include "harness/protocol/dut_messages.h"
#include "reference/error/expected.h"

namespace mr::dut {

struct AddressOrigin {
  bool pixit_named = false;  // --pixit was given
  std::string pixit_path;    // for the messages
  std::string dut;           // "agent://198.18.0.2:7471", for the messages
};

// Checks (a named PIXIT) or adopts (a default one) the DUT's MAC, IPv4 and IPv6 addresses.
// On success, what was adopted, one line each (empty when the PIXIT already agreed).
Expected<std::vector<std::string>, std::string> adopt_dut_addresses(
    engine::Pixit& pixit, const protocol::Capabilities& caps, const AddressOrigin& origin);

}  // namespace mr::dut
