// File: replay_command.h
//
// `metaroce replay FILE`: one connection of a capture (issue 8) either written as a test
// case (`--to-script OUT.mrt`) or replayed against a DUT (`--dut ...`, as `run` takes it):
// the requester's packets are injected, paced as recorded (or at once with --fast), with
// the DUT's live QPN, PSNs, R_Key and VAs put in by the engine's symbolic mapping, and the
// DUT's answers are compared with the recorded ones field by field; the first divergence
// is printed with both packets, and the run directory holds the report and the pcapng.
#pragma once

#include "harness/cli/command.h"

namespace mr::cli {

Runner setup_replay(CLI::App& app);

}  // namespace mr::cli
