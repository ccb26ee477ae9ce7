// File: dpdk_eal.h
//
// DPDK's Environment Abstraction Layer (EAL): memory, lcores, buses and drivers for every
// DPDK port of the process. DPDK starts it once per process and cannot start it again
// after rte_eal_cleanup, so DpdkEal is a shared handle: start() returns the running EAL
// when it was started with the same arguments, refuses other arguments, and the EAL is
// cleaned up when the last handle goes (every DpdkLink holds one, so no port outlives it).
// After that, start() refuses: the process would need a restart.
//
// default_arguments() suits this kind of machine (and CI): no hugepages (--no-huge -m 256),
// no PCI scan (NICs come in with --allow or hot-plugging), no shared files and no telemetry
// socket (so that parallel processes, testpmd among them, do not collide: --in-memory
// would be the other way, but DPDK refuses it beside --no-huge), errors only in the log,
// and one lcore allowed on every CPU the process may use (EAL would otherwise pin the
// calling thread, and every thread it creates later, to one CPU). Devices are hot-plugged
// by DpdkLink::attach, or named with --vdev/--allow here and opened with DpdkLink::open.
// The thread that calls start() becomes DPDK's main lcore (mempool caches work on lcores
// only; other threads use the pools without). DPDK's log goes to stderr, not to syslog.
//
// A failed start is an error that says what DPDK said (the unknown option, the refused
// value), without its usage text on the terminal. It leaves the EAL unusable in this
// process (DPDK keeps half of the parsed options), and start() then says so: try arguments
// in a child process when they may be wrong.
//
// Usage:
//   auto eal = DpdkEal::start();                    // default_arguments()
//   if (!eal) fail(eal.error());  // "rte_eal_init(--no-huge ...): Invalid argument: EAL: ..."
//   auto link = DpdkLink::attach(*eal, "net_af_packet0,iface=mrt0");
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "reference/error/expected.h"

namespace mr::io::dpdk {

class DpdkEal {
 public:
  // For this kind of machine; add "--vdev=..." or replace them all as needed.
  static std::vector<std::string> default_arguments();

  // `arguments` are argv[1...] for rte_eal_init (argv[0] is "metaroce").
  static Expected<std::shared_ptr<DpdkEal>, std::string> start(
      const std::vector<std::string>& arguments = default_arguments());

  DpdkEal(const DpdkEal&) = delete;
  DpdkEal& operator=(const DpdkEal&) = delete;
  ~DpdkEal();  // rte_eal_cleanup

  const std::vector<std::string>& arguments() const { return arguments_; }

 private:
  struct Key {};  // only start() constructs one

 public:
  DpdkEal(Key /*unused*/, std::vector<std::string> arguments) : arguments_(std::move(arguments)) {}

 private:
  std::vector<std::string> arguments_;
};

// "a b c": arguments as they would be typed, for messages.
std::string join_arguments(const std::vector<std::string>& arguments);

}  // namespace mr::io::dpdk
