// File: testpmd.h
//
// dpdk-testpmd (Debian's dpdk-dev), DPDK's own forwarding tool, run for a while in a
// network namespace on a device given by devargs, as the anchor DpdkLink is measured
// against: the per-second rates it prints (--stats-period 1) are its figures. Runs are
// bounded (`timeout -s INT`: testpmd prints its totals and exits 0 on SIGINT) and use
// EAL arguments that let it run beside this process's own EAL (no shared files).
//
// Usage:
//   auto run = run_testpmd(veth->a(), {.devargs = dev.devargs, .mode = "txonly",
//                                      .forwarding_cpu = 0, .seconds = 5});
//   double pps = median(run->tx_pps);
#pragma once

#include <string>
#include <vector>

#include "reference/error/expected.h"
#include "reference/io/network_namespace.h"

namespace mr::io::dpdk {

struct TestpmdOptions {
  std::string devargs;          // one port, e.g. af_packet_device(...).devargs
  std::string mode = "txonly";  // --forward-mode: txonly, rxonly, io, ...
  unsigned forwarding_cpu = 0;  // the forwarding lcore's CPU; the main lcore takes the other
  unsigned seconds = 5;         // then SIGINT
  unsigned frame_bytes = 64;    // txonly's frame length (--txpkts)
};

struct TestpmdRun {
  std::vector<double> rx_pps;  // one sample a second, as printed ("Rx-pps:")
  std::vector<double> tx_pps;
  std::string output;  // all it printed, for a failure's message
};

// Two CPUs at least (a main lcore and a forwarding one).
Expected<TestpmdRun, std::string> run_testpmd(const NetworkNamespace& ns,
                                              const TestpmdOptions& options);

// The samples a run holds while the traffic was steady: the non-zero ones without the first
// and the last (partial seconds at start and stop).
std::vector<double> steady_samples(const std::vector<double>& samples);

double median(std::vector<double> values);

}  // namespace mr::io::dpdk
