// File: fleet_plan.h
//
// What `metaroce fleet` submitted, in DIR/plan.json: the fleet, the binary every task runs
// (its absolute path, so that the tasks run the build that planned them), METAROCE_ROOT,
// each row's index and result folder, and the job arrays with their Slurm job ids. The
// tasks read it to know their row; `fleet --collect` reads it to know what to expect.
//
// Slurm job arrays cannot pin different tasks to different nodes, so the rows that name a
// node go into one array per node (--nodelist), and the others into one array in the
// partition. Task i of an array runs the array's i-th row.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/fleet/fleet_file.h"
#include "reference/error/expected.h"

namespace mr::fleet {

struct PlannedArray {
  std::string node;          // "": anywhere in the partition
  std::vector<size_t> rows;  // indices into fleet.rows, by array task id
  std::string script;        // file name in the fleet directory
  std::string job_id;        // "" until submitted
};

struct FleetPlan {
  Fleet fleet;
  std::string fleet_file;  // absolute
  std::string binary;      // absolute
  std::string root;        // METAROCE_ROOT for the tasks
  std::string out;         // the fleet directory, absolute
  std::vector<PlannedArray> arrays;

  // out/nodes/NAME: the row's status.json, doctor.json and run/.
  std::string node_folder(size_t row) const;
  std::string plan_path() const { return out + "/plan.json"; }
  // Every submitted job id, comma-separated (squeue -j).
  std::string job_ids() const;
};

// The arrays: one per named node in order of first appearance, then the unpinned rows.
FleetPlan make_plan(Fleet fleet, std::string fleet_file, std::string binary, std::string root,
                    std::string out);

// The fleet in the fleet file's own form (absolute paths), so one reader reads both.
nlohmann::json fleet_to_json(const Fleet& fleet);
nlohmann::json plan_to_json(const FleetPlan& plan);
Expected<FleetPlan, std::string> load_plan(const std::string& path);

}  // namespace mr::fleet
