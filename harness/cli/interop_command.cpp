#include "harness/cli/interop_command.h"

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "harness/cli/repository_file.h"
#include "harness/interop/matrix_report.h"
#include "harness/interop/matrix_runner.h"
#include "harness/interop/rxe_environment.h"

namespace mr::cli {
namespace {

struct InteropOptions {
  std::string dut = "rxe";
  std::string out = repository_file("reports/interop");
  uint64_t seed = 1;
  bool quick = false;
  std::string filter;
  std::vector<std::string> mutants;
  std::string console_log;
};

int run_interop(const InteropOptions& o) {
  if (o.dut != "rxe") {
    std::fprintf(stderr, "metaroce interop: --dut %s: only rxe is supported\n", o.dut.c_str());
    return kExitHarnessError;
  }
  std::printf("interop matrix (%s) against rxe, seed %llu: booting the guest\n",
              o.quick ? "quick" : "full", static_cast<unsigned long long>(o.seed));
  std::fflush(stdout);
  auto env = interop::RxeEnvironment::start(
      {.metaroce_binary = "", .console_log = o.console_log, .seed = o.seed});
  if (!env) {
    std::fprintf(stderr, "metaroce interop: %s\n", env.error().c_str());
    return kExitHarnessError;
  }
  const interop::MatrixEnvironment matrix_env = (*env)->matrix_environment();
  std::printf("%s; console %s\n", matrix_env.dut_description.c_str(),
              (*env)->guest().console_log().c_str());
  interop::MatrixOptions options{.out_dir = o.out,
                                 .seed = o.seed,
                                 .quick = o.quick,
                                 .filter = o.filter,
                                 .mutants = o.mutants,
                                 .on_cell = [](const interop::CellResult& c, size_t i, size_t n) {
                                   std::printf("[%3zu/%zu] %s\n", i + 1, n,
                                               interop::cell_line(c).c_str());
                                   std::fflush(stdout);
                                 }};
  auto result = interop::run_matrix(matrix_env, options);
  if (!result) {
    std::fprintf(stderr, "metaroce interop: %s\n", result.error().c_str());
    return kExitHarnessError;
  }
  if (auto written = interop::write_matrix_report(*result, o.out); !written) {
    std::fprintf(stderr, "metaroce interop: %s\n", written.error().c_str());
    return kExitHarnessError;
  }
  std::printf("%zu of %zu cells pass; %s/matrix.md\n", result->passed(), result->cells.size(),
              o.out.c_str());
  return result->passed() == result->cells.size() ? kExitOk : kExitFailed;
}

}  // namespace

Runner setup_interop(CLI::App& app) {
  auto o = std::make_shared<InteropOptions>();
  app.add_option("--dut", o->dut, "the device the reference meets: rxe (a Linux rxe guest)");
  app.add_option("--out", o->out, "where matrix.json, matrix.md and cells/ go")
      ->capture_default_str();
  app.add_option("--seed", o->seed, "seeds each cell's PSNs, data and impairments")
      ->capture_default_str();
  app.add_flag("--quick", o->quick, "a representative subset of about twenty cells");
  app.add_option("--filter", o->filter, "only cells whose name contains this text");
  app.add_option("--mutant", o->mutants, "break the reference (proof that a cell can fail)");
  app.add_option("--console-log", o->console_log, "where the guest's serial console goes");
  return [o] { return run_interop(*o); };
}

}  // namespace mr::cli
