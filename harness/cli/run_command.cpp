#include "harness/cli/run_command.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "harness/cli/doctor_manifest.h"
#include "harness/cli/job_count.h"
#include "harness/cli/progress_line.h"
#include "harness/cli/repository_file.h"
#include "harness/dut/dut_session.h"
#include "harness/engine/suite_runner.h"
#include "harness/report/run_directory.h"
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

const char* badge(report::Verdict v) {
  switch (v) {
    case report::Verdict::kPass:
      return "PASS  ";
    case report::Verdict::kFail:
      return "FAIL  ";
    case report::Verdict::kInconc:
      return "INCONC";
    case report::Verdict::kError:
      return "ERROR ";
    case report::Verdict::kNotApplicable:
      return "N/A   ";
    default:
      return "NONE  ";
  }
}

void print_result(const report::TestResult& r, bool quiet) {
  if (quiet && r.verdict == report::Verdict::kPass) return;
  std::printf("%s %-22s %s\n", badge(r.verdict), r.tp_id.c_str(), r.file.c_str());
  int shown = 0;
  for (const auto& f : r.failures) {
    if (++shown > 5) break;
    if (f.field.empty() || f.field == "script") {
      std::printf("         %s:%d: %s\n", f.file.c_str(), f.line, f.message.c_str());
    } else {
      std::printf("         %s:%d: %s: expected %s, actual %s (%s)\n", f.file.c_str(), f.line,
                  f.field.c_str(), f.expected.c_str(), f.actual.c_str(), f.message.c_str());
    }
  }
  if (r.failures.empty() && !r.reason.empty() && r.verdict != report::Verdict::kNotApplicable) {
    std::printf("         %s\n", r.reason.c_str());
  }
  if (r.flaky()) {
    std::string runs;
    for (const auto& rep : r.repetitions) {
      runs += (runs.empty() ? "" : ", ") + std::string(report::to_string(rep.verdict)) + " (seed " +
              std::to_string(rep.seed) + ")";
    }
    std::printf("         flaky: %s\n", runs.c_str());
  }
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

int run_impl(const RunOptions& o) {
  if (!o.fail_on.empty() && o.fail_on != "inconc") {
    std::fprintf(stderr, "metaroce run: --fail-on %s: the one choice is inconc\n",
                 o.fail_on.c_str());
    return kExitHarnessError;
  }
  if (auto ok = prepare_out_dir(o.out); !ok) {
    std::fprintf(stderr, "metaroce run: %s\n", ok.error().c_str());
    return kExitHarnessError;
  }
  if (o.link != "memory") {
    std::fprintf(
        stderr,
        "metaroce run: --link %s: the embedded reference runs over the in-memory link only\n",
        o.link.c_str());
    return kExitHarnessError;
  }
  auto seed = parse_seed(o.seed);
  if (!seed) {
    std::fprintf(stderr, "metaroce run: %s\n", seed.error().c_str());
    return kExitHarnessError;
  }
  auto jobs = resolve_jobs(o);
  if (!jobs) {
    std::fprintf(stderr, "metaroce run: %s\n", jobs.error().c_str());
    return kExitHarnessError;
  }
  const bool rxe = o.dut == "rxe";
  const std::string pixit_path = !o.pixit.empty()
                                     ? o.pixit
                                     : repository_file(rxe ? "testcases/pixit/rxe.pixit.json"
                                                           : "testcases/pixit/default.pixit.json");
  auto pixit = engine::Pixit::load(pixit_path);
  if (!pixit) {
    std::fprintf(stderr, "metaroce run: %s\n", pixit.error().c_str());
    return kExitHarnessError;
  }
  for (const auto& m : o.mutants) {
    if (!mutants::mutant_by_name(m)) {
      std::fprintf(stderr,
                   "metaroce run: --mutant %s: no such mutant (see ./metaroce mutants --list)\n",
                   m.c_str());
      return kExitHarnessError;
    }
  }
  const std::string profile = !o.profile.empty() ? o.profile : (rxe ? "rxe" : "reference");
  engine::SuiteOptions s;
  s.pics_path = repository_file("testcases/profiles/" + profile + ".pics.json");
  s.catalog_path = repository_file("docs/spec/clauses.json");
  s.pixit_path = pixit_path;
  const std::vector<std::string> given = o.paths.empty() ? std::vector{o.testcases} : o.paths;
  // A path that names no test case is refused before a DUT is touched (a guest boots in 15 s);
  // the suite then runs the files found, without walking the folders again.
  auto found = engine::find_test_cases(given);
  if (!found) {
    std::fprintf(stderr, "metaroce run: %s\n", found.error().c_str());
    return kExitHarnessError;
  }
  s.test_paths = std::move(*found);
  s.filter = o.filter;
  s.out_dir = o.out;
  s.seed = *seed;
  s.jobs = *jobs;
  s.repeat = o.repeat;
  ProgressLine progress(STDERR_FILENO, !o.no_progress);
  s.on_result = [&](const report::TestResult& r) {
    progress.clear();  // stdout and stderr may be the same terminal
    print_result(r, o.quiet);
  };
  s.on_progress = [&](const engine::SuiteProgress& p) { progress.show(p); };
  s.cancelled = [] { return g_interrupted.load(); };
  std::signal(SIGINT, on_interrupt);
  std::signal(SIGTERM, on_interrupt);

  dut::DutSpec spec{.dut = o.dut,
                    .seed = *seed,
                    .mutants = o.mutants,
                    .iface = o.iface,
                    .token = o.token,
                    .token_file = o.token_file,
                    .rxe_backend = o.rxe_backend,
                    .console_log = rxe ? o.out + "/guest-console.log" : ""};
  if (rxe) std::filesystem::create_directories(o.out);
  if (rxe) std::printf("metaroce run: booting the rxe guest (QEMU TCG, about 15 s)\n");
  std::fflush(stdout);
  auto session = dut::DutSession::open(spec, *pixit);
  if (!session) {
    std::fprintf(stderr, "metaroce run: %s\n", session.error().c_str());
    return kExitHarnessError;
  }
  std::printf("metaroce run: dut %s, profile %s, pixit %s, seed %llu%s\n",
              (*session)->description().c_str(), profile.c_str(), pixit_path.c_str(),
              static_cast<unsigned long long>(*seed), o.mutants.empty() ? "" : ", with mutants");
  if (*jobs > 1) std::printf("metaroce run: %d tests at once, each on a DUT of its own\n", *jobs);
  if (o.repeat > 1) {
    // Every repetition's seed, so that any one of them can be replayed alone.
    std::printf("metaroce run: each test %d times; repetition seeds:", o.repeat);
    for (int i = 0; i < o.repeat && i < 8; ++i)
      std::printf(" %llu", static_cast<unsigned long long>(engine::repetition_seed(*seed, i)));
    std::printf("%s (replay one: --seed S --filter TP)\n",
                o.repeat > 8 ? " ... (all in report.json)" : "");
  }
  // The first step of every run: is the DUT's host fit for RoCE at all? Its findings go
  // into the manifest; errors are shown here, since they explain failures that follow.
  auto doctor = doctor_for_manifest(o.dut, (*session)->port());
  if (doctor.contains("findings")) {
    std::printf("metaroce run: doctor on the DUT's host: worst finding %s\n",
                doctor.value("worst", "?").c_str());
    for (const auto& f : doctor["findings"]) {
      if (f.value("severity", "") != "error") continue;
      std::printf("  [error] %s: %s; fix: %s\n", f.value("subject", "").c_str(),
                  f.value("message", "").c_str(), f.value("remedy", "").c_str());
    }
  }
  std::fflush(stdout);
  // The embedded reference runs every test on a DUT of its own, serial or not, so a
  // test's capture and verdict are the same whatever ran before it and however many at once.
  auto result = (*session)->fresh_port() ? engine::run_suite((*session)->fresh_port(), *pixit, s)
                                         : engine::run_suite((*session)->port(), *pixit, s);
  progress.clear();
  if (!result) {
    std::fprintf(stderr, "metaroce run: %s\n", result.error().c_str());
    return kExitHarnessError;
  }
  result->doctor = std::move(doctor);
  result->harness_commit = repository_commit();
  result->mutants = o.mutants;
  // What chose the tests and judged them; --jobs and --out change no report, so a report of
  // --jobs 3 stays that of --jobs 1 (run_jobs_test).
  result->options = {{"dut", o.dut},       {"profile", profile},   {"pixit", pixit_path},
                     {"testcases", given}, {"filter", o.filter},   {"seed", o.seed},
                     {"repeat", o.repeat}, {"fail_on", o.fail_on}, {"mutants", o.mutants}};
  if (auto ok = report::write_run_directory(*result, o.out); !ok) {
    std::fprintf(stderr, "metaroce run: writing the report: %s\n", ok.error().c_str());
    return kExitHarnessError;
  }
  const auto counts = result->counts();
  auto count = [&](report::Verdict v) { return counts.contains(v) ? counts.at(v) : 0; };
  std::string flaky;
  if (o.repeat > 1) {
    const auto n = std::count_if(result->tests.begin(), result->tests.end(),
                                 [](const report::TestResult& t) { return t.flaky(); });
    flaky = ", " + std::to_string(n) + " flaky over " + std::to_string(o.repeat) + " runs each";
  }
  std::printf(
      "\n%d pass, %d fail, %d inconc, %d error, %d not applicable%s; report in %s/index.html\n",
      count(report::Verdict::kPass), count(report::Verdict::kFail), count(report::Verdict::kInconc),
      count(report::Verdict::kError), count(report::Verdict::kNotApplicable), flaky.c_str(),
      o.out.c_str());
  if (result->cancelled) {
    std::printf("interrupted: the run stopped early; the reports cover the tests that ran\n");
    return kExitHarnessError;
  }
  if (count(report::Verdict::kError) > 0) return kExitHarnessError;
  if (o.fail_on == "inconc" && count(report::Verdict::kInconc) > 0) return kExitFailed;
  return count(report::Verdict::kFail) > 0 ? kExitFailed : kExitOk;
}

}  // namespace

int run_with(const RunOptions& options) { return run_impl(options); }

CLI::Option* add_dut_options(CLI::App& app, RunOptions& o) {
  CLI::Option* dut =
      app.add_option("--dut", o.dut, "reference (embedded) | agent://HOST:PORT | rxe");
  app.add_option("--profile", o.profile,
                 "PICS profile in testcases/profiles/ (default: reference; rxe for --dut rxe)");
  app.add_option("--pixit", o.pixit,
                 "PIXIT file (test-bed parameters; default testcases/pixit/default.pixit.json, "
                 "rxe.pixit.json for --dut rxe)");
  app.add_option("--seed", o.seed, "seed of every random choice (a number, or 'random'); logged");
  app.add_option("--mutant", o.mutants,
                 "embedded reference: switch on a reference mutant (repeatable)");
  app.add_option("--iface", o.iface, "agent://: the interface facing the DUT (libpcap)");
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
  return [o] { return run_with(*o); };
}

}  // namespace mr::cli
