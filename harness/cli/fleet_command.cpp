#include "harness/cli/fleet_command.h"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "harness/cli/repository_file.h"
#include "harness/cli/run_command.h"
#include "harness/fleet/fleet_plan.h"
#include "harness/fleet/fleet_result.h"
#include "harness/fleet/fleet_task.h"
#include "harness/fleet/sbatch_script.h"
#include "harness/fleet/slurm_queue.h"

namespace mr::cli {
namespace {

namespace fs = std::filesystem;

struct FleetOptions {
  std::string fleet_file;
  std::string out;
  bool dry_run = false;
  std::string collect;
  int wait_s = 0;
  std::string plan;  // internal: one task
  int row = -1;
};

int harness_error(const std::string& message) {
  std::fprintf(stderr, "metaroce fleet: %s\n", message.c_str());
  return kExitHarnessError;
}

Expected<void, std::string> write_file(const std::string& path, const std::string& text,
                                       bool executable = false) {
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out.flush()) return Unexpected(temporary + ": cannot write");
  }
  if (executable) ::chmod(temporary.c_str(), 0755);
  std::error_code ec;
  fs::rename(temporary, path, ec);  // readers (the tasks) never see half a file
  if (ec) return Unexpected(path + ": " + ec.message());
  return {};
}

// As a shell would take it: words of plain characters bare, the others quoted.
std::string command_line(const std::vector<std::string>& argv) {
  const auto plain = [](const std::string& w) {
    return !w.empty() && std::all_of(w.begin(), w.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) != 0 ||
             std::string_view("_./:=,@%+-").find(c) != std::string_view::npos;
    });
  };
  std::string line;
  for (const auto& word : argv) {
    line += (line.empty() ? "" : " ") + (plain(word) ? word : fleet::shell_quote(word));
  }
  return line;
}

// The paths every task uses: absolute, and free of whitespace (#SBATCH lines cannot quote).
Expected<std::string, std::string> fleet_folder(const std::string& out) {
  const std::string path = fs::absolute(out).lexically_normal().string();
  if (std::any_of(path.begin(), path.end(),
                  [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; })) {
    return Unexpected("--out " + path + ": Slurm's #SBATCH lines cannot hold whitespace");
  }
  if (fs::exists(path + "/plan.json")) {
    return Unexpected("--out " + path + " holds a fleet already (plan.json): give another folder");
  }
  return path.ends_with('/') ? path.substr(0, path.size() - 1) : path;
}

int submit_fleet(const FleetOptions& o) {
  auto fleet = fleet::load_fleet(o.fleet_file);
  if (!fleet) return harness_error(fleet.error());
  auto out = fleet_folder(o.out);
  if (!out) return harness_error(out.error());
  std::error_code ec;
  const std::string binary = fs::read_symlink("/proc/self/exe", ec).string();
  if (ec) return harness_error("/proc/self/exe: " + ec.message());
  std::string root = repository_root();
  root =
      fs::absolute(root.empty() ? fs::current_path() : fs::path(root)).lexically_normal().string();
  fleet::FleetPlan plan =
      fleet::make_plan(std::move(*fleet), fs::absolute(o.fleet_file).string(), binary, root, *out);
  fs::create_directories(*out + "/slurm", ec);
  if (!ec) fs::create_directories(*out + "/nodes", ec);
  if (ec) return harness_error(*out + ": " + ec.message());
  for (size_t a = 0; a < plan.arrays.size(); ++a) {
    if (auto w =
            write_file(*out + "/" + plan.arrays[a].script, fleet::sbatch_script(plan, a), true);
        !w) {
      return harness_error(w.error());
    }
  }
  const auto write_plan = [&] {
    return write_file(plan.plan_path(), fleet::plan_to_json(plan).dump(2) + "\n");
  };
  if (auto w = write_plan(); !w) return harness_error(w.error());
  std::printf("metaroce fleet: %s, %zu row(s) in %zu job array(s), plan %s\n",
              plan.fleet.name.c_str(), plan.fleet.rows.size(), plan.arrays.size(),
              plan.plan_path().c_str());
  size_t refused = 0;
  for (size_t a = 0; a < plan.arrays.size(); ++a) {
    const auto argv = fleet::sbatch_command(plan, a);
    if (o.dry_run) {
      std::printf("%s\n", command_line(argv).c_str());
      continue;
    }
    auto id = fleet::submit(argv);
    if (!id) {
      // The other arrays still go: their nodes get qualified, and --collect reports the
      // rows of this one as never ran.
      std::fprintf(stderr, "metaroce fleet: %s: %s\n", plan.arrays[a].script.c_str(),
                   id.error().c_str());
      ++refused;
      continue;
    }
    plan.arrays[a].job_id = *id;
    if (auto w = write_plan(); !w) return harness_error(w.error());
    std::printf("submitted %s: job %s (%zu task(s)%s)\n", plan.arrays[a].script.c_str(),
                id->c_str(), plan.arrays[a].rows.size(),
                plan.arrays[a].node.empty() ? "" : (", node " + plan.arrays[a].node).c_str());
  }
  std::printf("collect with: metaroce fleet --collect %s --wait %d\n", out->c_str(),
              plan.fleet.time_limit_min * 60 + 60);
  if (refused > 0) {
    return harness_error(std::to_string(refused) + " of " + std::to_string(plan.arrays.size()) +
                         " job array(s) refused by sbatch; their rows will show as never ran");
  }
  return kExitOk;
}

int collect_fleet(const FleetOptions& o) {
  const std::string dir = fs::absolute(o.collect).lexically_normal().string();
  auto plan = fleet::load_plan(dir + "/plan.json");
  if (!plan) return harness_error(plan.error());
  // The plan's own folder may have moved since (copied off the cluster): read this one.
  plan->out = dir;
  if (o.wait_s > 0) {
    auto queued = fleet::wait_for_jobs(plan->job_ids(), o.wait_s);
    if (!queued) {
      std::fprintf(stderr, "metaroce fleet: squeue: %s; collecting what is there\n",
                   queued.error().c_str());
    } else if (*queued > 0) {
      std::fprintf(stderr,
                   "metaroce fleet: %zu job(s) still queued after %d s; collecting what "
                   "is there\n",
                   *queued, o.wait_s);
    }
  }
  std::vector<fleet::NodeResult> nodes;
  for (size_t row = 0; row < plan->fleet.rows.size(); ++row) {
    nodes.push_back(fleet::read_node_result(*plan, row));
  }
  const fleet::FleetResult result = fleet::make_fleet_result(plan->fleet.name, std::move(nodes));
  for (const auto& [name, text] :
       {std::pair{"index.html", fleet::render_fleet_html(result)},
        std::pair{"fleet.json", fleet::render_fleet_json(result).dump(2) + "\n"},
        std::pair{"junit.xml", fleet::render_fleet_junit(result)}}) {
    if (auto w = write_file(dir + "/" + name, text); !w) return harness_error(w.error());
  }
  for (const fleet::NodeResult& n : result.nodes) {
    std::printf("%-24s %-8s %s\n", n.planned.name.c_str(),
                std::string(report::to_string(n.verdict)).c_str(), n.reason.c_str());
  }
  std::printf("metaroce fleet: %s: %s; report in %s/index.html\n", result.name.c_str(),
              result.all_passed() ? "every node passed" : "not every node passed", dir.c_str());
  return result.all_passed() ? kExitOk : kExitFailed;
}

int run_task(const FleetOptions& o) {
  auto plan = fleet::load_plan(o.plan);
  if (!plan) return harness_error(plan.error());
  if (o.row < 0 || static_cast<size_t>(o.row) >= plan->fleet.rows.size()) {
    return harness_error("--row " + std::to_string(o.row) + ": the plan has rows 0 to " +
                         std::to_string(plan->fleet.rows.size() - 1));
  }
  return fleet::run_fleet_task(*plan, static_cast<size_t>(o.row),
                               [](const fleet::FleetRow& row, const std::string& folder) {
                                 RunOptions r;
                                 r.dut = row.dut;
                                 r.profile = row.profile;
                                 r.pixit = row.pixit;
                                 r.mutants = row.mutants;
                                 r.token_file = row.token_file;
                                 r.filter = row.filter;
                                 r.iface = row.iface;
                                 r.testcases = repository_file("testcases");
                                 r.out = folder;
                                 r.quiet = true;
                                 r.no_progress = true;
                                 return run_with(r);
                               });
}

int run_fleet(const FleetOptions& o) {
  if (!o.plan.empty()) return run_task(o);
  if (!o.collect.empty()) {
    if (!o.fleet_file.empty()) return harness_error("--collect DIR takes no fleet file");
    return collect_fleet(o);
  }
  if (o.fleet_file.empty()) return harness_error("give a fleet file, or --collect DIR");
  if (o.out.empty()) return harness_error("give --out DIR: the fleet's folder on shared storage");
  return submit_fleet(o);
}

}  // namespace

Runner setup_fleet(CLI::App& app) {
  auto o = std::make_shared<FleetOptions>();
  app.add_option("fleet_file", o->fleet_file, "the fleet file (JSON; docs/scale-out.md)");
  app.add_option("--out", o->out,
                 "the fleet's folder (plan, batch scripts, every node's results); on storage "
                 "every node sees");
  app.add_flag("--dry-run", o->dry_run, "write the plan and scripts, print the sbatch commands");
  auto* collect = app.add_option(
      "--collect", o->collect, "write the fleet report of DIR (index.html, fleet.json, junit.xml)");
  app.add_option("--wait", o->wait_s,
                 "--collect: first wait up to SECONDS for the fleet's jobs to leave the queue")
      ->needs(collect)
      ->check(CLI::NonNegativeNumber);
  // What an array task runs (sbatch_script.h); not for people, so not in --help.
  auto* plan = app.add_option("--plan", o->plan, "one task: the plan")->group("");
  app.add_option("--row", o->row, "one task: the row")->group("")->needs(plan);
  plan->needs(app.get_option("--row"));
  return [o] { return run_fleet(*o); };
}

}  // namespace mr::cli
