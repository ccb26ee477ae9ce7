#include "harness/fleet/sbatch_script.h"

#include <cctype>

namespace mr::fleet {

std::string shell_quote(std::string_view word) {
  std::string out = "'";
  for (char c : word) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

std::string sbatch_script(const FleetPlan& plan, size_t array) {
  const PlannedArray& a = plan.arrays.at(array);
  std::string s = "#!/bin/bash\n";
  s += "# metaroce fleet " + plan.fleet.name + ": " + std::to_string(a.rows.size()) +
       (a.node.empty() ? " row(s) anywhere in the partition" : " row(s) on node " + a.node) +
       ". Written by `metaroce fleet`; see docs/scale-out.md.\n";
  // #SBATCH lines are read by sbatch, not bash: no quoting, hence the plain names and
  // whitespace-free paths that the fleet file and `fleet --out` insist on.
  s += "#SBATCH --job-name=metaroce-" + plan.fleet.name + "\n";
  s += "#SBATCH --array=0-" + std::to_string(a.rows.size() - 1) + "\n";
  s += "#SBATCH --ntasks=1\n";
  s += "#SBATCH --time=" + std::to_string(plan.fleet.time_limit_min) + "\n";
  s += "#SBATCH --output=" + plan.out + "/slurm/%A_%a.out\n";
  s += "#SBATCH --chdir=" + plan.out + "\n";
  if (!plan.fleet.partition.empty()) s += "#SBATCH --partition=" + plan.fleet.partition + "\n";
  if (!a.node.empty()) s += "#SBATCH --nodelist=" + a.node + "\n";
  s += "rows=(";
  for (size_t i = 0; i < a.rows.size(); ++i) {
    s += (i == 0 ? "" : " ") + std::to_string(a.rows[i]);
  }
  s += ")\n";
  s += "export METAROCE_ROOT=" + shell_quote(plan.root) + "\n";
  s += "exec " + shell_quote(plan.binary) + " fleet --plan " + shell_quote(plan.plan_path()) +
       " --row \"${rows[$SLURM_ARRAY_TASK_ID]}\"\n";
  return s;
}

std::vector<std::string> sbatch_command(const FleetPlan& plan, size_t array) {
  return {"sbatch", "--parsable", plan.out + "/" + plan.arrays.at(array).script};
}

std::string parse_job_id(std::string_view out) {
  size_t end = 0;
  while (end < out.size() && std::isdigit(static_cast<unsigned char>(out[end])) != 0) ++end;
  // Digits, then nothing, a line end or ";cluster".
  if (end == 0 || (end < out.size() && out[end] != ';' && out[end] != '\n')) return "";
  return std::string(out.substr(0, end));
}

}  // namespace mr::fleet
