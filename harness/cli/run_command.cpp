#include "harness/cli/run_command.h"

#include <cstdio>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "harness/cli/doctor_manifest.h"
#include "harness/dut/embedded/embedded_reference_port.h"
#include "harness/engine/suite_runner.h"
#include "harness/report/run_directory.h"

namespace mr::cli {
namespace {

struct RunOptions {
  std::string dut = "reference";
  std::string profile;
  std::string pixit = "testcases/pixit/default.pixit.json";
  std::string filter;
  std::string link = "memory";
  std::string out = "reports/latest";
  std::string seed = "1";
  std::vector<std::string> mutants;
  bool quiet = false;
};

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
  std::fflush(stdout);
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

int run(const RunOptions& o) {
  if (o.dut != "reference") {
    std::fprintf(stderr,
                 "metaroce run: --dut %s: only the embedded reference DUT is available in this "
                 "build; a remote agent "
                 "(agent://HOST:PORT) and Linux rxe come with the interop work (issues 7 and 9)\n",
                 o.dut.c_str());
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
  auto pixit = engine::Pixit::load(o.pixit);
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
  const std::string profile = o.profile.empty() ? "reference" : o.profile;
  engine::SuiteOptions s;
  s.pics_path = "testcases/profiles/" + profile + ".pics.json";
  s.pixit_path = o.pixit;
  s.filter = o.filter;
  s.out_dir = o.out;
  s.seed = *seed;
  s.on_result = [&](const report::TestResult& r) { print_result(r, o.quiet); };
  std::printf(
      "metaroce run: dut reference (embedded, in-memory link), profile %s, pixit %s, seed %llu%s\n",
      profile.c_str(), o.pixit.c_str(), static_cast<unsigned long long>(*seed),
      o.mutants.empty() ? "" : ", with mutants");
  dut::EmbeddedReferencePort port(*pixit, {.seed = *seed, .mutants = o.mutants});
  auto result = engine::run_suite(port, *pixit, s);
  if (!result) {
    std::fprintf(stderr, "metaroce run: %s\n", result.error().c_str());
    return kExitHarnessError;
  }
  result->doctor = doctor_for_manifest(o.dut, port);
  if (auto ok = report::write_run_directory(*result, o.out); !ok) {
    std::fprintf(stderr, "metaroce run: writing the report: %s\n", ok.error().c_str());
    return kExitHarnessError;
  }
  const auto counts = result->counts();
  auto count = [&](report::Verdict v) { return counts.contains(v) ? counts.at(v) : 0; };
  std::printf(
      "\n%d pass, %d fail, %d inconc, %d error, %d not applicable; report in %s/index.html\n",
      count(report::Verdict::kPass), count(report::Verdict::kFail), count(report::Verdict::kInconc),
      count(report::Verdict::kError), count(report::Verdict::kNotApplicable), o.out.c_str());
  if (count(report::Verdict::kError) > 0) return kExitHarnessError;
  return count(report::Verdict::kFail) > 0 ? kExitFailed : kExitOk;
}

}  // namespace

Runner setup_run(CLI::App& app) {
  auto o = std::make_shared<RunOptions>();
  app.add_option("--dut", o->dut, "reference (embedded) | agent://HOST:PORT | rxe");
  app.add_option("--profile", o->profile,
                 "PICS profile in testcases/profiles/ (default: reference)");
  app.add_option("--pixit", o->pixit, "PIXIT file (test-bed parameters)");
  app.add_option("--filter", o->filter, "only tests whose tp id or path matches this glob");
  app.add_option("--link", o->link, "memory | veth");
  app.add_option("--out", o->out, "run directory for the reports");
  app.add_option("--seed", o->seed, "seed of every random choice (a number, or 'random'); logged");
  app.add_option("--mutant", o->mutants, "switch on a reference mutant (repeatable)");
  app.add_flag("--quiet", o->quiet, "print only tests that did not pass");
  return [o] { return run(*o); };
}

}  // namespace mr::cli
