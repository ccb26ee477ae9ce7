// File: doctor_command.h
//
// `metaroce doctor [--dut embedded|agent://HOST:PORT] [--token T | --token-file F] [--json]
// [--root PATH]`: the RDMA readiness of the DUT host (harness/doctor). Without --dut it
// inspects this host directly; with agent:// it asks the agent (op "doctor"). Exit 0 when
// no finding is an error, 1 when one is, 2 when the doctor could not run (no agent, bad
// token, bad options).
#pragma once

#include "harness/cli/command.h"

namespace mr::cli {

Runner setup_doctor(CLI::App& app);

}  // namespace mr::cli
