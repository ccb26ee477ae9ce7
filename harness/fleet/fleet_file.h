// File: fleet_file.h
//
// The fleet file: which nodes or device stations to qualify, and how. JSON:
//
//   {"fleet": "rack-7", "partition": "rdma", "time_limit_min": 30,
//    "rows": [{"name": "node-01", "node": "node-01", "dut": "agent://10.0.0.5:7471",
//              "iface": "ens2f1", "profile": "reference", "pixit": "lab.pixit.json",
//              "token_file": "token", "filter": "RC-ACK-*"},
//             {"name": "node-02", "node": "node-02", "dut": "verbs:mlx5_0", "iface": "ens2f1"},
//             {"name": "canary", "dut": "reference", "mutants": ["wrong-msn"]}]}
//
// A row is one task: `name` names its result folder (letters, digits, . _ -; unique);
// `node` pins it to that Slurm node (absent: anywhere in the partition); `dut` is what
// `metaroce run --dut` takes (verbs:DEVICE: the node's own NIC, behind an agent the task
// starts); `iface` (agent:// and verbs: only, required there) and the rest are run's
// options of the same names. Relative
// `pixit` and `token_file` paths are the fleet file's folder's. Every error names the
// file, the line and the field: "lab.fleet.json:9: rows[1].dut: missing".
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "reference/error/expected.h"

namespace mr::fleet {

struct FleetRow {
  std::string name;
  std::string node;  // "": any node of the partition
  std::string dut;
  std::string profile;  // "": run's default for the DUT
  std::string pixit;    // absolute, or ""
  std::vector<std::string> mutants;
  std::string token_file;  // absolute, or ""
  std::string filter;
  std::string iface;  // agent:// and verbs:DEVICE: the node's interface facing the DUT
};

struct Fleet {
  std::string name;
  std::string partition;  // "": the cluster's default partition
  int time_limit_min = 30;
  std::vector<FleetRow> rows;
};

// `origin` names the file in errors; `folder` resolves relative paths (absolute or "").
Expected<Fleet, std::string> parse_fleet(std::string_view text, const std::string& origin,
                                         const std::string& folder);
Expected<Fleet, std::string> load_fleet(const std::string& path);

}  // namespace mr::fleet
