// Unmodified ibv_rc_pingpong and perftest tools in the Linux rxe guest against the reference
// peer (issue #9): each run must end with the tool's own success output, the reference's
// side of the traffic complete, and a capture of the whole RoCE exchange in which
// `metaroce analyze` finds no violation. One guest boot per run (about 20 s under TCG).
//
// The default matrix is a representative subset (interop_matrix(false), about ten runs);
// METAROCE_PEER_MATRIX=full runs every tool x role x operation x MTU x size. Needs root,
// /dev/net/tun and qemu-system-x86_64; skips otherwise. Captures land in
// $TEST_UNDECLARED_OUTPUTS_DIR (or /tmp) as <case>.pcapng.
#include "harness/peer/rxe_interop.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

#include "reference/io/command.h"
#include "reference/io/network_namespace.h"

namespace mr::peer {
namespace {

namespace fs = std::filesystem;

std::optional<std::string> skip_reason() {
  if (geteuid() != 0) return "needs root for network namespaces and a tap device";
  if (!fs::exists("/dev/net/tun")) return "no /dev/net/tun";
  if (!io::run_command({"qemu-system-x86_64", "--version"})) {
    return "no qemu-system-x86_64 (package qemu-system-x86)";
  }
  if (!io::run_command({"ip", "netns", "list"})) return "no usable `ip netns` here";
  return std::nullopt;
}

bool full_matrix() {
  const char* m = std::getenv("METAROCE_PEER_MATRIX");
  return m != nullptr && std::string(m) == "full";
}

std::string output_dir() {
  const char* dir = std::getenv("TEST_UNDECLARED_OUTPUTS_DIR");
  return dir != nullptr ? dir : "/tmp";
}

class RxeInterop : public ::testing::TestWithParam<InteropCase> {};

TEST_P(RxeInterop, ToolSucceedsAndTheCaptureHasNoViolation) {
  if (auto reason = skip_reason()) GTEST_SKIP() << *reason;
  const InteropCase& c = GetParam();
  InteropOptions options;
  options.capture_path = output_dir() + "/" + c.name() + ".pcapng";
  options.timeout_ms = 120'000;  // a run of the matrix takes seconds; a hang fails sooner
  auto r = run_interop_case(c, options);
  ASSERT_TRUE(r) << r.error();
  std::printf("interop %-40s %s | tool: %s | reference: %s | %llu frames, %llu RoCE\n",
              c.name().c_str(), r->verdict().c_str(), r->tool_summary.c_str(),
              r->peer.describe().c_str(), static_cast<unsigned long long>(r->frames),
              static_cast<unsigned long long>(r->roce_frames));
  EXPECT_TRUE(r->passed()) << r->verdict() << "\nguest: " << r->command_line << "\ntool output:\n"
                           << r->tool_output;
  for (const auto& line : r->violation_lines) ADD_FAILURE() << line;
  EXPECT_TRUE(io::no_namespaces_left_by_this_process());
}

std::string case_name(const ::testing::TestParamInfo<InteropCase>& info) {
  std::string name = info.param.name();
  for (char& ch : name) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Matrix, RxeInterop, ::testing::ValuesIn(interop_matrix(full_matrix())),
                         case_name);

}  // namespace
}  // namespace mr::peer
