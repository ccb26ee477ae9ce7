// File: fleet_command.h
//
// `metaroce fleet`: fleet qualification on Slurm (docs/scale-out.md, harness/fleet).
//   metaroce fleet FLEET.json --out DIR [--dry-run]
//       writes DIR/plan.json and one batch script per job array (DIR/job-*.sbatch) and
//       submits them with sbatch; --dry-run prints the sbatch command lines instead.
//   metaroce fleet --collect DIR [--wait SECONDS]
//       waits (bounded) until squeue no longer lists the fleet's jobs, then writes the fleet
//       report: DIR/index.html, DIR/fleet.json, DIR/junit.xml.
//   metaroce fleet --plan DIR/plan.json --row K       (internal: what an array task runs)
//       doctor and the suite for row K, into DIR/nodes/NAME/.
// Exit codes: submission 0 when every array was submitted (or written, --dry-run), 2
// otherwise; --collect 0 when every node passed, 1 when one did not (failed, inconclusive,
// error, never ran), 2 when the fleet directory cannot be read; a task: its run's code.
#pragma once

#include "harness/cli/command.h"

namespace mr::cli {

Runner setup_fleet(CLI::App& app);

}  // namespace mr::cli
