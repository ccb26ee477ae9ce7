#include "harness/cli/run_command.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "harness/cli/build_commit.h"
#include "harness/cli/doctor_manifest.h"
#include "harness/cli/job_count.h"
#include "harness/cli/progress_line.h"
#include "harness/cli/repository_file.h"
#include "harness/cli/result_text.h"
#include "harness/dut/dut_session.h"
#include "harness/engine/suite_runner.h"
#include "harness/report/report_json_reader.h"
#include "harness/report/run_directory.h"
#include "harness/spec/clause_catalog.h"
#include "reference/mutants/mutant.h"

namespace mr::cli {
namespace {

std::atomic<bool> g_interrupted{false};

// First Ctrl-C: finish the running test, write the reports, tear the DUT down (a guest,
// its namespace). A second one ends the process at once.
extern "C" void on_interrupt(int /*signal*/) {
  g_interrupted.store(true);
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
}

void print_result(const report::TestResult& r, bool quiet, const spec::ClauseCatalog& catalog) {
  if (quiet && r.verdict == report::Verdict::kPass) return;
  std::fputs(result_text(r, catalog).c_str(), stdout);
  std::fflush(stdout);
}

// --jobs and --repeat as the run uses them, or why they cannot be.
Expected<int, std::string> resolve_jobs(const RunOptions& o) {
  constexpr int kMaxRepeat = 100'000;
  auto counted = job_count(o.jobs);
  if (!counted) return Unexpected(counted.error());
  if (o.repeat < 1 || o.repeat > kMaxRepeat)
    return Unexpected("--repeat " + std::to_string(o.repeat) + ": give 1 to " +
                      std::to_string(kMaxRepeat));
  const int jobs = *counted;
  if (jobs > 1 && o.dut != "reference")
    return Unexpected(
        "--jobs " + std::to_string(o.jobs) + " with --dut " + o.dut +
        ": a remote DUT is one device behind one agent and one capture; tests at once would "
        "share its device-wide counters and one capture that this harness does not split by "
        "QP, so their verdicts could not be trusted. Run it with --jobs 1 (tests in parallel "
        "are for the embedded reference, a DUT of its own per test)");
  return jobs;
}

Expected<uint64_t, std::string> parse_seed(const std::string& s) {
  if (s == "random") return std::random_device{}() | (uint64_t{std::random_device{}()} << 32);
  try {
    size_t used = 0;
    const uint64_t v = std::stoull(s, &used, 0);
    if (used != s.size()) return Unexpected("--seed: '" + s + "' is not a number");
    return v;
  } catch (const std::exception&) {
    return Unexpected("--seed: '" + s + "' is not a number or 'random'");
  }
}

// The run directory: a file there is refused before any test runs; an earlier run's
// captures are removed, so the directory shows this run only.
Expected<void, std::string> prepare_out_dir(const std::string& dir) {
  std::error_code ec;
  if (std::filesystem::exists(dir, ec) && !std::filesystem::is_directory(dir, ec))
    return Unexpected("--out " + dir + ": exists and is not a directory");
  std::filesystem::remove_all(std::filesystem::path(dir) / "captures", ec);
  if (ec) return Unexpected("--out " + dir + ": cannot clear its captures: " + ec.message());
  return {};
}

// Every harness error of a run: one line on stderr, exit 2.
int harness_error(const std::string& message) {
  std::fprintf(stderr, "metaroce run: %s\n", message.c_str());
  return kExitHarnessError;
}

// What the options settle before a DUT is touched, and what the report records of them.
struct RunPlan {
  uint64_t seed = 0;
  int jobs = 1;
  bool rxe = false;
  std::string profile;
  std::string pixit_path;
  engine::Pixit pixit;
  std::vector<std::string> adopted_addresses;  // the DUT's, from its agent into the PIXIT
  std::vector<std::string> given;              // the paths as given: the report's "testcases"
  engine::SuiteOptions suite;                  // its callbacks are watch_run's
};

// The choices checked first, in this order; clearing --out's captures is the first thing a
// run changes.
Expected<void, std::string> check_run_options(const RunOptions& o) {
  if (!o.fail_on.empty() && o.fail_on != "inconc")
    return Unexpected("--fail-on " + o.fail_on + ": the one choice is inconc");
  if (auto ok = prepare_out_dir(o.out); !ok) return ok;
  if (o.link != "memory")
    return Unexpected("--link " + o.link +
                      ": the embedded reference runs over the in-memory link only");
  return {};
}

// The PIXIT for a kind of DUT: the embedded reference shares the tester's clock; a remote
// agent, or this host's verbs device behind one, is a real-clock bed (its DUT addresses then
// come from the agent, dut_addresses.h); rxe counts in jiffies under emulation.
std::string default_pixit(const std::string& dut) {
  if (dut == "rxe") return "testcases/pixit/rxe.pixit.json";
  if (dut.starts_with("agent://") || dut.starts_with("verbs:"))
    return "testcases/pixit/veth.pixit.json";
  return "testcases/pixit/default.pixit.json";
}

// The PIXIT given, else the DUT kind's.
Expected<void, std::string> load_pixit(const RunOptions& o, RunPlan& p) {
  p.pixit_path = !o.pixit.empty() ? o.pixit : repository_file(default_pixit(o.dut));
  auto pixit = engine::Pixit::load(p.pixit_path);
  if (!pixit) return Unexpected(pixit.error());
  p.pixit = std::move(*pixit);
  return {};
}

// The suite's inputs; a path that names no test case is refused before a DUT is touched
// (a guest boots in 15 s), and the suite then runs the files found, without walking the
// folders again.
Expected<void, std::string> choose_tests(const RunOptions& o, RunPlan& p) {
  engine::SuiteOptions& s = p.suite;
  s.pics_path = repository_file("testcases/profiles/" + p.profile + ".pics.json");
  s.catalog_path = repository_file("docs/spec/clauses.json");
  s.pixit_path = p.pixit_path;
  p.given = o.paths.empty() ? std::vector{o.testcases} : o.paths;
  auto found = engine::find_test_cases(p.given);
  if (!found) return Unexpected(found.error());
  s.test_paths = std::move(*found);
  s.filter = o.filter;
  s.out_dir = o.out;
  s.seed = p.seed;
  s.jobs = p.jobs;
  s.repeat = o.repeat;
  return {};
}

// Each test's time in a previous run (all its repetitions), to balance the shards by.
Expected<std::map<std::string, double>, std::string> previous_durations(const std::string& path) {
  auto previous = report::read_report_json(path);
  if (!previous) return Unexpected("--balance-from " + previous.error());
  std::map<std::string, double> durations;
  for (const report::TestResult& t : previous->tests) {
    double total = 0;
    for (const report::Repetition& r : t.repetitions) total += r.duration_s;
    durations[t.tp_id] = t.repetitions.empty() ? t.duration_s : total;
  }
  if (durations.empty())
    return Unexpected("--balance-from " + path +
                      ": the report has no tests to take durations from");
  return durations;
}

// --shard and --balance-from as the suite takes them.
Expected<void, std::string> choose_shard(const RunOptions& o, engine::SuiteOptions& s) {
  if (o.shard.empty()) {
    if (!o.balance_from.empty())
      return Unexpected(std::string("--balance-from balances shards: give --shard I/N too"));
    return {};
  }
  auto shard = engine::parse_shard(o.shard);
  if (!shard) return Unexpected(shard.error());
  s.shard = *shard;
  if (o.balance_from.empty()) return {};
  auto durations = previous_durations(o.balance_from);
  if (!durations) return Unexpected(durations.error());
  s.shard_durations = std::move(*durations);
  s.shard_balance = "durations of " + o.balance_from;
  return {};
}

Expected<RunPlan, std::string> plan_run(const RunOptions& o) {
  if (auto ok = check_run_options(o); !ok) return Unexpected(ok.error());
  RunPlan p;
  auto seed = parse_seed(o.seed);
  if (!seed) return Unexpected(seed.error());
  p.seed = *seed;
  auto jobs = resolve_jobs(o);
  if (!jobs) return Unexpected(jobs.error());
  p.jobs = *jobs;
  p.rxe = o.dut == "rxe";
  if (auto ok = load_pixit(o, p); !ok) return Unexpected(ok.error());
  for (const auto& m : o.mutants) {
    if (!mutants::mutant_by_name(m))
      return Unexpected("--mutant " + m + ": no such mutant (see ./metaroce mutants --list)");
  }
  p.profile = !o.profile.empty() ? o.profile : (p.rxe ? "rxe" : "reference");
  if (auto ok = choose_tests(o, p); !ok) return Unexpected(ok.error());
  if (auto ok = choose_shard(o, p.suite); !ok) return Unexpected(ok.error());
  return p;
}

// Each result as it comes, the live progress line, and Ctrl-C (on_interrupt).
void watch_run(engine::SuiteOptions& s, ProgressLine& progress, bool quiet) {
  // For the titles of the clauses a failure is against; one the run cannot read stops it
  // before any test, so an empty catalog here only costs the titles.
  auto catalog = std::make_shared<spec::ClauseCatalog>();
  if (auto loaded = spec::ClauseCatalog::load(s.catalog_path)) *catalog = std::move(*loaded);
  s.on_result = [&progress, quiet, catalog](const report::TestResult& r) {
    progress.clear();  // stdout and stderr may be the same terminal
    print_result(r, quiet, *catalog);
  };
  s.on_progress = [&progress](const engine::SuiteProgress& p) { progress.show(p); };
  s.cancelled = [] { return g_interrupted.load(); };
  std::signal(SIGINT, on_interrupt);
  std::signal(SIGTERM, on_interrupt);
}

// The DUT; an rxe guest's console goes into the run directory.
Expected<std::unique_ptr<dut::DutSession>, std::string> open_dut(const RunOptions& o, RunPlan& p) {
  const dut::DutSpec spec{
      .dut = o.dut,
      .seed = p.seed,
      .mutants = o.mutants,
      .iface = o.iface,
      .token = o.token,
      .token_file = o.token_file,
      .agent_log = o.dut.starts_with("verbs:") ? o.out + "/local-agent.log" : "",
      .pixit_named = !o.pixit.empty(),
      .pixit_path = p.pixit_path,
      .rxe_backend = o.rxe_backend,
      .console_log = p.rxe ? o.out + "/guest-console.log" : ""};
  if (p.rxe || o.dut.starts_with("verbs:")) std::filesystem::create_directories(o.out);
  if (p.rxe) std::printf("metaroce run: booting the rxe guest (QEMU TCG, about 15 s)\n");
  std::fflush(stdout);
  auto session = dut::DutSession::open(spec, p.pixit);
  if (session) p.adopted_addresses = (*session)->adopted_addresses();
  return session;
}

void print_header(const RunOptions& o, const RunPlan& p, const dut::DutSession& session) {
  std::printf("metaroce run: dut %s, profile %s, pixit %s, seed %llu%s\n",
              session.description().c_str(), p.profile.c_str(), p.pixit_path.c_str(),
              static_cast<unsigned long long>(p.seed), o.mutants.empty() ? "" : ", with mutants");
  if (p.suite.shard)
    std::printf("metaroce run: shard %d of %d, balanced by %s\n", p.suite.shard->index,
                p.suite.shard->total,
                p.suite.shard_balance.empty() ? "count" : p.suite.shard_balance.c_str());
  if (p.jobs > 1) std::printf("metaroce run: %d tests at once, each on a DUT of its own\n", p.jobs);
  for (const auto& a : p.adopted_addresses)
    std::printf("metaroce run: from the DUT's agent into the PIXIT: %s\n", a.c_str());
  if (o.repeat > 1) {
    // Every repetition's seed, so that any one of them can be replayed alone.
    std::printf("metaroce run: each test %d times; repetition seeds:", o.repeat);
    for (int i = 0; i < o.repeat && i < 8; ++i)
      std::printf(" %llu", static_cast<unsigned long long>(engine::repetition_seed(p.seed, i)));
    std::printf("%s (replay one: --seed S --filter TP)\n",
                o.repeat > 8 ? " ... (all in report.json)" : "");
  }
}

// The first step of every run: is the DUT's host fit for RoCE at all? Its findings go
// into the manifest; errors are shown here, since they explain failures that follow.
nlohmann::ordered_json check_dut_host(const std::string& dut, engine::DutPort& port) {
  auto doctor = doctor_for_manifest(dut, port);
  if (doctor.contains("findings")) {
    std::printf("metaroce run: doctor on the DUT's host: worst finding %s\n",
                doctor.value("worst", "?").c_str());
    for (const auto& f : doctor["findings"]) {
      if (f.value("severity", "") != "error") continue;
      // A finding about the host as a whole has no subject (a device, a port, a GID).
      const std::string subject = f.value("subject", "");
      std::printf("  [error] %s%s%s; fix: %s\n", subject.c_str(), subject.empty() ? "" : ": ",
                  f.value("message", "").c_str(), f.value("remedy", "").c_str());
    }
  }
  std::fflush(stdout);
  return doctor;
}

// The embedded reference runs every test on a DUT of its own, serial or not, so a
// test's capture and verdict are the same whatever ran before it and however many at once.
Expected<report::RunResult, std::string> run_tests(dut::DutSession& session, const RunPlan& p) {
  return session.fresh_port() ? engine::run_suite(session.fresh_port(), p.pixit, p.suite)
                              : engine::run_suite(session.port(), p.pixit, p.suite);
}

Expected<void, std::string> write_reports(report::RunResult& result, const RunOptions& o,
                                          const RunPlan& p, nlohmann::ordered_json doctor) {
  result.doctor = std::move(doctor);
  HarnessCommit commit = harness_commit(build_commit());
  result.harness_commit = std::move(commit.commit);
  result.harness_commit_source = std::move(commit.source);
  result.mutants = o.mutants;
  // What chose the tests and judged them; --jobs and --out change no report, so a report of
  // --jobs 3 stays that of --jobs 1 (run_jobs_test).
  result.options = {{"dut", o.dut},         {"profile", p.profile}, {"pixit", p.pixit_path},
                    {"testcases", p.given}, {"filter", o.filter},   {"seed", o.seed},
                    {"repeat", o.repeat},   {"fail_on", o.fail_on}, {"mutants", o.mutants}};
  if (!p.adopted_addresses.empty()) result.options["pixit_from_dut"] = p.adopted_addresses;
  if (auto ok = report::write_run_directory(result, o.out); !ok)
    return Unexpected("writing the report: " + ok.error());
  return {};
}

// Bazel's test sharding (a target with shard_count): the shard from TEST_TOTAL_SHARDS and
// TEST_SHARD_INDEX when --shard is not given, and TEST_SHARD_STATUS_FILE touched to tell
// Bazel this test shards.
Expected<void, std::string> adopt_bazel_shard(RunOptions& o) {
  if (!o.shard.empty()) return {};
  auto bazel =
      engine::shard_from_bazel(std::getenv("TEST_TOTAL_SHARDS"), std::getenv("TEST_SHARD_INDEX"));
  if (!bazel) return Unexpected(bazel.error());
  if (!*bazel) return {};
  o.shard = std::to_string((*bazel)->index) + "/" + std::to_string((*bazel)->total);
  if (const char* status = std::getenv("TEST_SHARD_STATUS_FILE")) std::ofstream{status};
  std::printf("metaroce run: Bazel test shard, --shard %s\n", o.shard.c_str());
  return {};
}

int run_impl(const RunOptions& o) {
  auto plan = plan_run(o);
  if (!plan) return harness_error(plan.error());
  ProgressLine progress(STDERR_FILENO, !o.no_progress);
  watch_run(plan->suite, progress, o.quiet);
  auto session = open_dut(o, *plan);
  if (!session) return harness_error(session.error());
  print_header(o, *plan, **session);
  auto doctor = check_dut_host(o.dut, (*session)->port());
  auto result = run_tests(**session, *plan);
  progress.clear();
  if (!result) return harness_error(result.error());
  if (result->dut.contains("pics_not_claimed")) {
    std::string features;
    for (const auto& f : result->dut["pics_not_claimed"])
      features += (features.empty() ? "" : ", ") + f.get<std::string>();
    std::printf(
        "metaroce run: profile %s claims what the DUT's capabilities do not (%s): those "
        "tests are not applicable\n",
        plan->profile.c_str(), features.c_str());
  }
  if (auto ok = write_reports(*result, o, *plan, std::move(doctor)); !ok)
    return harness_error(ok.error());
  print_summary(*result, o.out);
  return exit_code(*result, o.fail_on);
}

}  // namespace

namespace {

int verdict_count(const std::map<report::Verdict, int>& counts, report::Verdict v) {
  return counts.contains(v) ? counts.at(v) : 0;
}

}  // namespace

void print_summary(const report::RunResult& result, const std::string& out) {
  const auto counts = result.counts();
  auto count = [&](report::Verdict v) { return verdict_count(counts, v); };
  std::string flaky;
  if (result.repeat > 1) {
    const auto n = std::count_if(result.tests.begin(), result.tests.end(),
                                 [](const report::TestResult& t) { return t.flaky(); });
    flaky =
        ", " + std::to_string(n) + " flaky over " + std::to_string(result.repeat) + " runs each";
  }
  std::printf(
      "\n%d pass, %d fail, %d inconc, %d error, %d not applicable%s; report in %s/index.html\n",
      count(report::Verdict::kPass), count(report::Verdict::kFail), count(report::Verdict::kInconc),
      count(report::Verdict::kError), count(report::Verdict::kNotApplicable), flaky.c_str(),
      out.c_str());
  if (result.cancelled)
    std::printf("interrupted: the run stopped early; the reports cover the tests that ran\n");
}

// An interrupted run and a test in error are the harness's failures; --fail-on inconc makes
// an inconclusive test fail the run as a failed one does.
int exit_code(const report::RunResult& result, const std::string& fail_on) {
  const auto counts = result.counts();
  if (result.cancelled) return kExitHarnessError;
  if (verdict_count(counts, report::Verdict::kError) > 0) return kExitHarnessError;
  if (fail_on == "inconc" && verdict_count(counts, report::Verdict::kInconc) > 0)
    return kExitFailed;
  return verdict_count(counts, report::Verdict::kFail) > 0 ? kExitFailed : kExitOk;
}

int run_with(const RunOptions& options) { return run_impl(options); }

CLI::Option* add_dut_options(CLI::App& app, RunOptions& o) {
  CLI::Option* dut =
      app.add_option("--dut", o.dut,
                     "reference (embedded) | agent://HOST:PORT | verbs:DEVICE (this host's RDMA "
                     "device, behind an agent the run starts) | rxe");
  app.add_option("--profile", o.profile,
                 "PICS profile in testcases/profiles/ (default: reference; rxe for --dut rxe)");
  app.add_option(
      "--pixit", o.pixit,
      "PIXIT file (test-bed parameters; default by DUT kind in testcases/pixit/: "
      "default.pixit.json, veth.pixit.json for agent:// and verbs: with the DUT's addresses "
      "from its agent, rxe.pixit.json for --dut rxe; a named one must match the "
      "agent's addresses)");
  app.add_option("--seed", o.seed, "seed of every random choice (a number, or 'random'); logged");
  app.add_option("--mutant", o.mutants,
                 "embedded reference: switch on a reference mutant (repeatable)");
  app.add_option("--iface", o.iface, "agent:// and verbs:: the interface facing the DUT (libpcap)");
  app.add_option("--token", o.token, "agent://: the agent's shared secret");
  app.add_option("--token-file", o.token_file, "agent://: a file whose first line is the token");
  app.add_option("--rxe-backend", o.rxe_backend,
                 "rxe: the agent backend in the guest: verbs (rdma_rxe) | reference (self-test "
                 "of the tap path)");
  return dut;
}

Runner setup_run(CLI::App& app) {
  auto o = std::make_shared<RunOptions>();
  // The project's files wherever the command runs from; the user's paths from where it is.
  o->testcases = repository_file("testcases");
  o->out = repository_file("reports/latest");
  add_dut_options(app, *o);
  app.add_option("paths", o->paths,
                 "test case files (.mrt) or folders to run instead of the whole suite");
  app.add_option("--filter", o->filter,
                 "only tests whose tp id or path matches one of these globs (comma-separated)");
  app.add_option("--link", o->link, "memory | veth");
  app.add_option("--out", o->out, "run directory for the reports")->capture_default_str();
  app.add_option("--testcases", o->testcases, "folder of the whole suite")->capture_default_str();
  app.add_flag("--quiet", o->quiet, "print only tests that did not pass");
  app.add_option("--jobs", o->jobs,
                 "tests at once, each on a DUT of its own (embedded reference only; 0: one per "
                 "core); reports do not depend on it")
      ->capture_default_str();
  app.add_option("--repeat", o->repeat,
                 "run each test N times, each on a fresh DUT with a seed derived from --seed; "
                 "a test whose verdict changes is flagged flaky")
      ->capture_default_str();
  app.add_option("--fail-on", o->fail_on,
                 "inconc: an inconclusive test fails the run (exit 1) like a failed one");
  app.add_flag("--no-progress", o->no_progress,
               "no live progress line on a terminal (there is none when stderr is not one)");
  app.add_option("--shard", o->shard,
                 "I/N: run only shard I of N of the selected tests (1-based; default under "
                 "bazel test: its TEST_SHARD_INDEX/TEST_TOTAL_SHARDS); `merge` joins the shards");
  app.add_option("--balance-from", o->balance_from,
                 "with --shard: a previous run's report.json; the shards are balanced by its "
                 "test durations (longest first) instead of by count");
  return [o] {
    if (auto ok = adopt_bazel_shard(*o); !ok) return harness_error(ok.error());
    return run_with(*o);
  };
}

}  // namespace mr::cli
