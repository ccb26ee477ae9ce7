#include "reference/io/dpdk/testpmd.h"

#include <algorithm>
#include <sstream>

namespace mr::io::dpdk {
namespace {

// The number after `label` on each line that has it ("  Tx-pps:      1377570   ...").
std::vector<double> samples(const std::string& output, const std::string& label) {
  std::vector<double> values;
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);) {
    const size_t at = line.find(label);
    if (at == std::string::npos) continue;
    try {
      values.push_back(std::stod(line.substr(at + label.size())));
    } catch (const std::exception&) {
      // not a stats line after all
    }
  }
  return values;
}

}  // namespace

Expected<TestpmdRun, std::string> run_testpmd(const NetworkNamespace& ns,
                                              const TestpmdOptions& options) {
  const unsigned main_cpu = options.forwarding_cpu == 0 ? 1 : 0;
  std::vector<std::string> argv = {"timeout",
                                   "--preserve-status",
                                   "-s",
                                   "INT",
                                   std::to_string(options.seconds),
                                   "dpdk-testpmd",
                                   "--no-huge",
                                   "-m",
                                   "256",
                                   "--no-pci",
                                   "--no-shconf",
                                   "--no-telemetry",
                                   "--log-level=error",
                                   "-l",
                                   std::to_string(std::min(main_cpu, options.forwarding_cpu)) +
                                       "," +
                                       std::to_string(std::max(main_cpu, options.forwarding_cpu)),
                                   "--main-lcore",
                                   std::to_string(main_cpu),
                                   "--vdev=" + options.devargs,
                                   "--",
                                   "--forward-mode=" + options.mode,
                                   "--stats-period",
                                   "1",
                                   "--total-num-mbufs=8192",
                                   "--txpkts=" + std::to_string(options.frame_bytes)};
  if (options.mode == "io") argv.emplace_back("--port-topology=loop");  // one port: back out
  auto output = ns.exec(argv, (options.seconds + 20) * 1000ULL);
  if (!output) return Unexpected(output.error());
  TestpmdRun run{samples(*output, "Rx-pps:"), samples(*output, "Tx-pps:"), *output};
  if (run.rx_pps.empty() && run.tx_pps.empty()) {
    return Unexpected("dpdk-testpmd printed no rates: " + *output);
  }
  return run;
}

std::vector<double> steady_samples(const std::vector<double>& samples) {
  std::vector<double> nonzero;
  for (double s : samples) {
    if (s > 0) nonzero.push_back(s);
  }
  if (nonzero.size() <= 2) return nonzero;
  return {nonzero.begin() + 1, nonzero.end() - 1};
}

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t mid = values.size() / 2;
  return values.size() % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

}  // namespace mr::io::dpdk
