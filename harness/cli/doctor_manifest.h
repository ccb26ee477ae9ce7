// File: doctor_manifest.h
//
// The doctor report of the DUT's host for a run's manifest.json (issue 7: the first step
// of every certification run): asked of the DUT's agent through its control port. The
// embedded reference runs inside the harness and has no host of its own, so it is skipped;
// an agent that cannot answer is recorded with its error, never failing the run.
//
//   run.doctor = doctor_for_manifest(options.dut, session.port());
//   // {"worst":"ok","findings":[...],"facts":{...}} | {"skipped":"..."} | {"error":"..."}
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

#include "harness/engine/dut_port.h"

namespace mr::cli {

nlohmann::ordered_json doctor_for_manifest(std::string_view dut, engine::DutPort& port);

}  // namespace mr::cli
