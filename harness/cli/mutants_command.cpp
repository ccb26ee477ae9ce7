#include "harness/cli/mutants_command.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "harness/cli/job_count.h"
#include "harness/cli/repository_file.h"
#include "harness/dut/embedded/embedded_reference_port.h"
#include "harness/engine/suite_runner.h"
#include "harness/report/escape.h"
#include "reference/mutants/mutant.h"
#include "reference/transport/decision.h"

namespace mr::cli {
namespace {

struct MutantsOptions {
  bool list = false;
  std::string out = repository_file("reports/mutants");
  std::string filter;
  std::vector<std::string> only;
  std::string pixit = repository_file("testcases/pixit/default.pixit.json");
  uint64_t seed = 1;
  int jobs = 0;             // tests at once within each suite; 0: one per core
  bool every_test = false;  // run each mutant against every test, not only those reaching it
};

struct Matrix {
  std::vector<std::string> tests;                      // every applicable test purpose
  std::map<std::string, std::set<std::string>> kills;  // mutant -> tests that failed on it
  std::set<std::string> baseline_not_passing;        // tests that do not pass on the real reference
  std::map<std::string, std::string> justification;  // tp -> positive-path reason
  std::map<std::string, size_t> runs;                // mutant -> test purposes run against it
};

// Which mutants' decisions each test purpose read on the correct reference, and its file.
struct Coverage {
  std::map<std::string, std::set<mutants::Mutant>> reads;  // tp -> mutants
  std::map<std::string, std::string> files;                // tp -> test case file
};

// Gives each fresh embedded reference a DecisionLog and, when the test that ran on it is done,
// adds what it read to the coverage. Tests run on several threads at once (--jobs).
class CoverageRecorder {
 public:
  explicit CoverageRecorder(Coverage& into) : into_(into) {}
  void adopt(const engine::DutPort* port, std::shared_ptr<transport::DecisionLog> log) {
    const std::lock_guard lock(mu_);
    logs_[port] = std::move(log);
  }
  void done(const std::string& tp, const engine::DutPort& port) {
    const std::lock_guard lock(mu_);
    const auto it = logs_.find(&port);
    if (it == logs_.end()) return;
    for (const auto m : it->second->consulted()) into_.reads[tp].insert(m);
    logs_.erase(it);
  }

 private:
  Coverage& into_;
  std::mutex mu_;
  std::map<const engine::DutPort*, std::shared_ptr<transport::DecisionLog>> logs_;
};

// The suite (or the given test case files) on the embedded reference with `mutants` applied:
// every test on a reference of its own (as `./metaroce run` does), `jobs` at once; the
// verdicts do not depend on `jobs`. With `coverage`, what each test's DUT read is noted there.
Expected<report::RunResult, std::string> suite(const engine::Pixit& pixit, const MutantsOptions& o,
                                               int jobs, const std::vector<std::string>& mutants,
                                               const std::string& out,
                                               std::vector<std::string> test_paths,
                                               Coverage* coverage = nullptr) {
  engine::SuiteOptions s;
  s.pics_path = repository_file("testcases/profiles/reference.pics.json");
  s.catalog_path = repository_file("docs/spec/clauses.json");
  s.test_paths = std::move(test_paths);
  s.pixit_path = o.pixit;
  s.filter = o.filter;
  s.out_dir = out;
  s.keep_passing_captures = false;
  s.seed = o.seed;
  s.max_attempts = 1;
  s.jobs = jobs;
  std::optional<CoverageRecorder> recorder;
  if (coverage != nullptr) {
    recorder.emplace(*coverage);
    s.on_run_done = [&recorder](const std::string& tp, engine::DutPort& port) {
      recorder->done(tp, port);
    };
  }
  const engine::PortFactory fresh_port =
      [&pixit, &mutants,
       &recorder](uint64_t seed) -> Expected<std::unique_ptr<engine::DutPort>, std::string> {
    dut::EmbeddedOptions options{.seed = seed, .mutants = mutants};
    if (!recorder) return std::make_unique<dut::EmbeddedReferencePort>(pixit, options);
    // The log is the port's from its first packet: handed over before the port exists.
    auto log = std::make_shared<transport::DecisionLog>();
    options.decision_log = log;
    auto port = std::make_unique<dut::EmbeddedReferencePort>(pixit, options);
    recorder->adopt(port.get(), std::move(log));
    return port;
  };
  auto r = engine::run_suite(fresh_port, pixit, s);
  if (r && coverage != nullptr) {
    for (const auto& t : r->tests) coverage->files[t.tp_id] = t.file;
  }
  return r;
}

// The test case files of the test purposes whose baseline run read `mutant`'s decision: the
// only ones whose run can differ on the mutant (decision.h).
std::vector<std::string> tests_reaching(const Coverage& coverage, const Matrix& m,
                                        mutants::Mutant mutant) {
  std::vector<std::string> files;
  for (const auto& tp : m.tests) {
    const auto reads = coverage.reads.find(tp);
    if (reads != coverage.reads.end() && reads->second.contains(mutant)) {
      files.push_back(coverage.files.at(tp));
    }
  }
  return files;
}

void write_outputs(const Matrix& m, const std::string& dir, double kill_rate) {
  std::filesystem::create_directories(dir);
  nlohmann::ordered_json j;
  j["schema_version"] = 1;
  j["kill_rate"] = kill_rate;
  j["tests"] = m.tests;
  auto& rows = j["mutants"] = nlohmann::ordered_json::array();
  for (const auto& info : mutants::all_mutants()) {
    const std::string name(info.name);
    if (!m.kills.contains(name)) continue;
    rows.push_back(
        {{"name", name},
         {"clauses", std::string(info.clauses)},
         {"description", std::string(info.description)},
         {"killed_by", std::vector<std::string>(m.kills.at(name).begin(), m.kills.at(name).end())},
         {"tests_run", m.runs.contains(name) ? m.runs.at(name) : 0}});
  }
  j["baseline_not_passing"] =
      std::vector<std::string>(m.baseline_not_passing.begin(), m.baseline_not_passing.end());
  std::ofstream(dir + "/mutants.json") << j.dump(2) << "\n";

  std::ofstream html(dir + "/mutants.html");
  html << "<!doctype html><meta charset=utf-8><title>metaroce mutants</title>"
          "<style>body{font:14px sans-serif;margin:2em}td,th{border:1px solid #ccc;padding:3px 6px}"
          "table{border-collapse:collapse}.dead{background:#dfd}.alive{background:#fdd}</style>"
       << "<h1>Mutants: kill rate " << static_cast<int>(kill_rate * 1000) / 10.0 << "%</h1><table>"
       << "<tr><th>mutant</th><th>clauses</th><th>what the broken device does</th><th>killed "
          "by</th></tr>";
  for (const auto& row : j["mutants"]) {
    const bool dead = !row["killed_by"].empty();
    std::string killers;
    for (const auto& t : row["killed_by"]) killers += t.get<std::string>() + " ";
    html << "<tr class=" << (dead ? "dead" : "alive") << "><td>"
         << report::text_escape(row["name"].get<std::string>()) << "</td><td>"
         << report::text_escape(row["clauses"].get<std::string>()) << "</td><td>"
         << report::text_escape(row["description"].get<std::string>()) << "</td><td>"
         << (dead ? report::text_escape(killers) : "<b>survived</b>") << "</td></tr>";
  }
  html << "</table>\n";
}

int run(const MutantsOptions& o) {
  if (o.list) {
    for (const auto& m : mutants::all_mutants()) {
      std::printf("%-32s %-22s %s\n", std::string(m.name).c_str(), std::string(m.clauses).c_str(),
                  std::string(m.description).c_str());
    }
    return kExitOk;
  }
  auto jobs = job_count(o.jobs);
  if (!jobs) {
    std::fprintf(stderr, "metaroce mutants: %s\n", jobs.error().c_str());
    return kExitHarnessError;
  }
  auto pixit = engine::Pixit::load(o.pixit);
  if (!pixit) {
    std::fprintf(stderr, "metaroce mutants: %s\n", pixit.error().c_str());
    return kExitHarnessError;
  }
  Matrix m;
  Coverage coverage;
  auto baseline =
      suite(*pixit, o, *jobs, {}, o.out + "/baseline", {repository_file("testcases")}, &coverage);
  if (!baseline) {
    std::fprintf(stderr, "metaroce mutants: %s\n", baseline.error().c_str());
    return kExitHarnessError;
  }
  for (const auto& t : baseline->tests) {
    if (t.verdict == report::Verdict::kNotApplicable) continue;
    m.tests.push_back(t.tp_id);
    if (t.verdict != report::Verdict::kPass) m.baseline_not_passing.insert(t.tp_id);
  }
  std::printf("baseline: %zu applicable test purposes, %zu not passing on the reference\n",
              m.tests.size(), m.baseline_not_passing.size());
  size_t total = 0;
  size_t killed = 0;
  for (const auto& info : mutants::all_mutants()) {
    const std::string name(info.name);
    if (!o.only.empty() && std::find(o.only.begin(), o.only.end(), name) == o.only.end()) continue;
    auto& set = m.kills[name];
    std::vector<std::string> files = o.every_test
                                         ? std::vector<std::string>{repository_file("testcases")}
                                         : tests_reaching(coverage, m, info.id);
    m.runs[name] = o.every_test ? m.tests.size() : files.size();
    ++total;
    if (files.empty()) {  // no test reads its decision: none can kill it
      std::printf("%-32s SURVIVED (no test purpose reads its decision)\n", name.c_str());
      continue;
    }
    auto r = suite(*pixit, o, *jobs, {name}, o.out + "/runs/" + name, std::move(files));
    if (!r) {
      std::fprintf(stderr, "metaroce mutants: %s: %s\n", name.c_str(), r.error().c_str());
      return kExitHarnessError;
    }
    for (const auto& t : r->tests) {
      // A kill is a fail (or an error the DUT caused) on a test that passes on the reference.
      const bool bad = t.verdict == report::Verdict::kFail || t.verdict == report::Verdict::kError;
      if (bad && !m.baseline_not_passing.contains(t.tp_id)) set.insert(t.tp_id);
    }
    killed += set.empty() ? 0 : 1;
    std::printf("%-32s %s (%zu test purposes read its decision)\n", name.c_str(),
                set.empty()
                    ? "SURVIVED"
                    : ("killed by " + std::to_string(set.size()) + " test purposes").c_str(),
                m.runs[name]);
    std::fflush(stdout);
  }
  const double rate = total == 0 ? 0 : static_cast<double>(killed) / static_cast<double>(total);
  std::set<std::string> killers;
  for (const auto& [mutant, tests] : m.kills) killers.insert(tests.begin(), tests.end());
  std::vector<std::string> idle;
  for (const auto& t : m.tests) {
    if (!killers.contains(t)) idle.push_back(t);
  }
  size_t runs = 0;
  for (const auto& [mutant, n] : m.runs) runs += n;
  write_outputs(m, o.out, rate);
  std::printf("\ntest runs: %zu of the %zu of every mutant against every test purpose%s\n", runs,
              total * m.tests.size(), o.every_test ? " (--every-test)" : "");
  std::printf("\nkill rate: %zu of %zu mutants (%.1f%%); %zu test purposes kill no mutant%s\n",
              killed, total, rate * 100, idle.size(), idle.empty() ? "" : ":");
  for (const auto& t : idle) std::printf("  %s\n", t.c_str());
  std::printf("matrix: %s/mutants.json, %s/mutants.html\n", o.out.c_str(), o.out.c_str());
  return killed == total && m.baseline_not_passing.empty() ? kExitOk : kExitFailed;
}

}  // namespace

Runner setup_mutants(CLI::App& app) {
  auto o = std::make_shared<MutantsOptions>();
  app.add_flag("--list", o->list, "print every mutant (name, clauses, what it breaks) and stop");
  app.add_option("--out", o->out, "directory for mutants.json and mutants.html");
  app.add_option("--filter", o->filter, "only tests whose tp id or path matches this glob");
  app.add_option("--only", o->only, "only these mutants (repeatable)");
  app.add_option("--pixit", o->pixit, "PIXIT file");
  app.add_option("--seed", o->seed, "seed of every random choice; logged");
  app.add_flag("--every-test", o->every_test,
               "run each mutant against every test purpose, not only those that read its "
               "decision on the correct reference (the matrix is the same; it takes longer)");
  app.add_option("--jobs", o->jobs,
                 "tests at once, each on a reference of its own (0: one per core); the matrix "
                 "does not depend on it");
  return [o] { return run(*o); };
}

}  // namespace mr::cli
