// File: rxe_environment.h
//
// The interop matrix's environment against Linux rxe: one QEMU guest (harness/dut/rxe) for
// the whole matrix, its verbs agent reached over the tap with DutControl, and the
// reference's libpcap link on the tap playing the tester's identity (198.18.0.1). The
// guest's netdev MTU is 9000, so rxe's active MTU is 4096 and both path MTUs fit. Owns all
// of it: destroying the environment closes the link and the control connection, then
// stops QEMU and removes the tap and the namespace.
//
//   auto env = RxeEnvironment::start({.metaroce_binary = "bazel-bin/harness/cli/metaroce"});
//   auto result = run_matrix(env->matrix_environment(), options);
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "harness/dut/dut_control.h"
#include "harness/dut/rxe/rxe_guest.h"
#include "harness/interop/matrix_runner.h"
#include "reference/io/pcap_link.h"

namespace mr::interop {

struct RxeEnvironmentOptions {
  std::string metaroce_binary;  // "" = this process's executable
  std::string console_log;      // "" = a temp file
  uint64_t seed = 1;            // the agent's
};

class RxeEnvironment {
 public:
  static Expected<std::unique_ptr<RxeEnvironment>, std::string> start(
      const RxeEnvironmentOptions& options);
  RxeEnvironment(const RxeEnvironment&) = delete;
  RxeEnvironment& operator=(const RxeEnvironment&) = delete;
  ~RxeEnvironment();

  MatrixEnvironment matrix_environment();
  const dut::RxeGuest& guest() const { return *guest_; }

 private:
  RxeEnvironment() = default;

  // Declared so that they go in reverse: the control connection and the link before QEMU.
  std::optional<dut::RxeGuest> guest_;
  std::optional<io::PcapLink> link_;
  std::optional<dut::DutControl> control_;
};

}  // namespace mr::interop
