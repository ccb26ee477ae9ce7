// File: fleet_task.h
//
// One task of a fleet (one row of the plan), as a Slurm array task runs it on its node:
//   1. DIR/nodes/NAME/status.json: started, on which host, which Slurm job and array task;
//   2. DIR/nodes/NAME/doctor.json: the RDMA readiness of this host (`metaroce doctor
//      --json`'s report; an agent's own report is in run/manifest.json, as `run` records);
//   3. the suite, as `metaroce run` runs it, into DIR/nodes/NAME/run (through `run_suite`,
//      which the CLI gives: the fleet does not depend on the CLI);
//   4. status.json again: finished, the run's exit code, the doctor's worst finding.
// SIGTERM or SIGINT during 2 or 3 records the task as killed (termination_watch.h).
// Returns the run's exit code (2 when the task could not start it).
#pragma once

#include <functional>
#include <string>

#include "harness/fleet/fleet_plan.h"

namespace mr::fleet {

// Runs the suite for `row` with its reports in `run_folder`; returns run's exit code.
using SuiteRun = std::function<int(const FleetRow& row, const std::string& run_folder)>;

int run_fleet_task(const FleetPlan& plan, size_t row, const SuiteRun& run_suite);

}  // namespace mr::fleet
