// Packets per second of the passive analyzer on a large capture, beside tshark reading the
// same file in the same run (`tshark -r FILE -T fields -e frame.number`), plus the memory
// the analysis holds (RssAnon: the file mapping itself is page cache, not analyzer state).
//
//   bazel build --config=bench //harness/analyze:analyze_benchmark
//   bazel-bin/harness/analyze/analyze_benchmark --capture FILE [--tshark] [benchmark flags]
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include "harness/analyze/analyze_capture.h"

namespace {

std::string g_capture = "/root/.cache/metaroce-bench/rc-5000000.pcapng";  // synth_capture --mix rc
bool g_tshark = false;

// A /proc/self/status field in kB ("VmHWM", "RssAnon").
double status_kb(const char* field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field, 0) == 0 && line[std::strlen(field)] == ':') {
      return std::stod(line.substr(std::strlen(field) + 1));
    }
  }
  return 0;
}

void BM_Analyze(benchmark::State& state) {
  uint64_t frames = 0;
  uint64_t violations = 0;
  for (auto _ : state) {
    mr::analyze::Analyzer a([&](const mr::analyze::Violation&) { ++violations; });
    auto ok = mr::analyze::analyze_capture(g_capture, a);
    if (!ok) state.SkipWithError(ok.error().to_string().c_str());
    frames += a.counts().frames;
    benchmark::DoNotOptimize(a.counts());
  }
  state.counters["packets_per_second"] =
      benchmark::Counter(static_cast<double>(frames), benchmark::Counter::kIsRate);
  state.counters["frames"] = static_cast<double>(frames) / static_cast<double>(state.iterations());
  state.counters["violations"] = static_cast<double>(violations);
  state.counters["rss_anon_kb"] = status_kb("RssAnon");
}
BENCHMARK(BM_Analyze)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(2);

// The anchor: tshark reading the same file (one pass; it is slow).
void BM_Tshark(benchmark::State& state) {
  if (!g_tshark) {
    state.SkipWithError("pass --tshark to run the anchor");
    return;
  }
  uint64_t frames = 0;
  for (auto _ : state) {
    const std::string cmd = "tshark -r '" + g_capture + "' -T fields -e frame.number 2>/dev/null";
    std::FILE* p = popen(cmd.c_str(), "r");
    if (!p) {
      state.SkipWithError("cannot run tshark");
      return;
    }
    char buf[64];
    while (std::fgets(buf, sizeof buf, p)) ++frames;
    pclose(p);
  }
  state.counters["packets_per_second"] =
      benchmark::Counter(static_cast<double>(frames), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Tshark)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);

}  // namespace

int main(int argc, char** argv) {
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--capture") == 0 && i + 1 < argc) {
      g_capture = argv[++i];
    } else if (std::strcmp(argv[i], "--tshark") == 0) {
      g_tshark = true;
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
