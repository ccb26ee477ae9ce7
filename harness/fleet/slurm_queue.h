// File: slurm_queue.h
//
// The two questions the fleet asks Slurm, through its ordinary commands (no library, no
// daemon protocol): submit a batch script (sbatch --parsable), and are these jobs still
// queued or running (squeue -h -j IDS). Every call is bounded.
#pragma once

#include <string>
#include <vector>

#include "reference/error/expected.h"

namespace mr::fleet {

// Runs the sbatch command line; returns the job id it printed.
Expected<std::string, std::string> submit(const std::vector<std::string>& sbatch_argv);

// The jobs (array tasks included) of `job_ids` (comma-separated) that squeue still lists;
// 0 when none is (squeue forgets finished jobs after MinJobAge and then calls their ids
// invalid: that is "gone" too).
Expected<size_t, std::string> jobs_in_queue(const std::string& job_ids);

// Polls jobs_in_queue every second until it is 0 or `seconds` have passed. Returns the
// number still queued at the end (0: all gone).
Expected<size_t, std::string> wait_for_jobs(const std::string& job_ids, int seconds);

}  // namespace mr::fleet
