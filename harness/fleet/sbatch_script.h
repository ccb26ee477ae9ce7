// File: sbatch_script.h
//
// The batch script of one job array of a fleet plan, and the sbatch command that submits
// it. Task i of the array runs the array's i-th row, in process (no shell beyond the
// script's one exec, so Slurm's SIGTERM reaches the task itself):
//
//   #SBATCH --array=0-2 --nodelist=node-01 ...
//   rows=(0 3 4)
//   exec /abs/metaroce fleet --plan DIR/plan.json --row "${rows[$SLURM_ARRAY_TASK_ID]}"
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "harness/fleet/fleet_plan.h"

namespace mr::fleet {

// A word for bash: single-quoted, each ' as '\''.
std::string shell_quote(std::string_view word);

// The script of plan.arrays[array]. Slurm's own output goes to DIR/slurm/JOB_TASK.out.
std::string sbatch_script(const FleetPlan& plan, size_t array);

// argv of the submission: sbatch --parsable SCRIPT (prints "JOBID" or "JOBID;CLUSTER").
std::vector<std::string> sbatch_command(const FleetPlan& plan, size_t array);

// The job id in sbatch --parsable's answer; "" when there is none.
std::string parse_job_id(std::string_view sbatch_output);

}  // namespace mr::fleet
