// RxeGuest: boots the Soft-RoCE guest under QEMU (TCG) inside a namespace of our own, talks
// to its agent through DutControl over the tap, and checks that nothing (QEMU, namespace,
// tap) outlives the guest, also when the boot fails. Needs root, /dev/net/tun and
// qemu-system-x86_64; skips otherwise. The agent runs the reference backend here (the
// verbs backend is tested with the interop suite); the guest's rxe0 is checked through the
// ready marker init prints only once `rdma link` shows the port ACTIVE.
#include "harness/dut/rxe/rxe_guest.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "harness/dut/dut_control.h"
#include "reference/io/command.h"

namespace mr::dut {
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

std::string metaroce_binary() {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  return std::string(srcdir != nullptr ? srcdir : ".") + "/metaroce/harness/cli/metaroce";
}

RxeGuestOptions reference_guest() {
  RxeGuestOptions o;
  o.metaroce_binary = metaroce_binary();
  o.backend = "reference";
  o.boot_timeout_ms = 240'000;  // TCG on a loaded 2-core machine
  return o;
}

// QEMU processes whose parent is this process (comm is cut to 15 characters).
std::vector<std::string> our_qemu_processes() {
  std::vector<std::string> found;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/proc", ec)) {
    std::ifstream stat(entry.path() / "stat");
    std::string pid;
    std::string comm;
    std::string state;
    pid_t ppid = 0;
    if (!(stat >> pid >> comm >> state >> ppid)) continue;
    if (ppid == getpid() && comm.find("qemu") != std::string::npos) found.push_back(pid);
  }
  return found;
}

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void expect_nothing_left(const std::string& netns_name) {
  EXPECT_TRUE(our_qemu_processes().empty());
  EXPECT_FALSE(fs::exists("/run/netns/" + netns_name)) << netns_name;
  EXPECT_TRUE(io::no_namespaces_left_by_this_process());
}

TEST(RxeGuest, BootsRxeAndAnswersCapabilitiesThenLeavesNothing) {
  if (auto reason = skip_reason()) GTEST_SKIP() << *reason;
  const auto t0 = std::chrono::steady_clock::now();
  std::optional<RxeGuest> guest;
  {
    auto started = RxeGuest::start(reference_guest());
    ASSERT_TRUE(started) << started.error();
    guest.emplace(std::move(*started));
  }
  const auto boot_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0)
          .count();
  std::printf("rxe guest: image and boot took %lld ms, kernel %s\n",
              static_cast<long long>(boot_ms), guest->kernel_version().c_str());
  const std::string netns_name = guest->netns().name();
  EXPECT_EQ(guest->tap(), "tap0");
  EXPECT_EQ(guest->token().size(), 32U);
  EXPECT_TRUE(guest->netns().ip({"link", "show", guest->tap()}));

  // The control connection opens inside the namespace, where the tap is.
  std::optional<Result<DutControl>> control;
  auto inside = guest->netns().run_inside([&] {
    control.emplace(DutControl::connect(guest->options().guest_ip.to_string(), guest->agent_port(),
                                        guest->token(), 30'000));
  });
  ASSERT_TRUE(inside) << inside.error();
  ASSERT_TRUE(*control) << control->error().to_string();
  auto caps = (*control)->call("capabilities");
  ASSERT_TRUE(caps) << caps.error().to_string();
  EXPECT_EQ((*caps)["device"]["name"], "metaroce-reference") << caps->dump();
  EXPECT_EQ((*caps)["mac"], guest->options().guest_mac.to_string()) << caps->dump();

  // rxe0 came up: init prints the marker only after `rdma link` shows port 1 ACTIVE.
  EXPECT_FALSE(guest->kernel_version().empty());
  const std::string console = read_all(guest->console_log());
  EXPECT_NE(console.find("metaroce-guest: ready rxe0 " + guest->kernel_version()),
            std::string::npos)
      << console;
  EXPECT_NE(console.find("link rxe0/1 state ACTIVE"), std::string::npos) << console;
  EXPECT_NE(console.find("PERMANENT"), std::string::npos) << console;
  EXPECT_FALSE(our_qemu_processes().empty());

  control.reset();
  guest.reset();
  expect_nothing_left(netns_name);
}

// Exec mode (issue #9): the command runs once rxe0 is ACTIVE, its output comes back between
// the markers, its exit status is reported, and the network hook ran before the boot.
TEST(RxeGuest, ExecModeRunsACommandAndReportsItsOutputAndStatus) {
  if (auto reason = skip_reason()) GTEST_SKIP() << *reason;
  RxeGuestOptions o;
  o.metaroce_binary = "/usr/bin/true";  // not run in exec mode
  o.boot_timeout_ms = 240'000;
  o.netdev_mtu = 9000;
  o.exec = "ibv_devinfo -d rxe0; echo 'quoted \"words\" survive'; exit 3";
  bool hook_ran = false;
  o.on_network_ready = [&](const io::NetworkNamespace& ns,
                           const std::string& tap) -> Expected<void, std::string> {
    hook_ran = ns.ip({"link", "show", tap}).has_value();
    return {};
  };
  auto guest = RxeGuest::start(o);
  ASSERT_TRUE(guest) << guest.error();
  EXPECT_TRUE(hook_ran);
  const std::string netns_name = guest->netns().name();
  auto done = guest->wait_exec(120'000);
  ASSERT_TRUE(done) << done.error();
  EXPECT_EQ(done->status, 3) << done->output;
  EXPECT_NE(done->output.find("hca_id:\trxe0"), std::string::npos) << done->output;
  EXPECT_NE(done->output.find("PORT_ACTIVE"), std::string::npos) << done->output;
  EXPECT_NE(done->output.find("active_mtu:\t\t4096"), std::string::npos) << done->output;
  EXPECT_NE(done->output.find("quoted \"words\" survive"), std::string::npos) << done->output;
  EXPECT_EQ(done->output.find("metaroce-guest:"), std::string::npos) << done->output;
  guest = Unexpected(std::string("gone"));
  expect_nothing_left(netns_name);
}

TEST(RxeGuest, BootTimeoutFailsWithTheConsoleAndLeavesNothing) {
  if (auto reason = skip_reason()) GTEST_SKIP() << *reason;
  RxeGuestOptions o = reference_guest();
  o.boot_timeout_ms = 1;
  auto guest = RxeGuest::start(o);
  ASSERT_FALSE(guest);
  EXPECT_NE(guest.error().find("no ready marker within boot_timeout_ms = 1"), std::string::npos)
      << guest.error();
  EXPECT_NE(guest.error().find("last console lines"), std::string::npos) << guest.error();
  std::printf("%s\n", guest.error().c_str());
  EXPECT_TRUE(our_qemu_processes().empty());
  EXPECT_TRUE(io::no_namespaces_left_by_this_process());
}

TEST(RxeGuest, KernelThatDoesNotBootFailsWithQemusErrorAndLeavesNothing) {
  if (auto reason = skip_reason()) GTEST_SKIP() << *reason;
  // Named like the real kernel so that the modules are found, but not a kernel at all.
  std::string version;
  for (const auto& entry : fs::directory_iterator("/lib/modules")) {
    version = entry.path().filename().string();
  }
  ASSERT_FALSE(version.empty());
  const char* tmp = std::getenv("TEST_TMPDIR");
  const fs::path dir = fs::path(tmp != nullptr ? tmp : "/tmp") / "bogus-kernel";
  fs::create_directories(dir);
  const fs::path kernel = dir / ("vmlinuz-" + version);
  std::ofstream(kernel) << "not a kernel\n";
  setenv("METAROCE_DUT_VM_KERNEL", kernel.c_str(), 1);
  RxeGuestOptions o = reference_guest();
  o.boot_timeout_ms = 60'000;
  auto guest = RxeGuest::start(o);
  unsetenv("METAROCE_DUT_VM_KERNEL");
  ASSERT_FALSE(guest);
  EXPECT_NE(guest.error().find("QEMU ended (exit 1)"), std::string::npos) << guest.error();
  // QEMU's own complaint ("qemu: linux kernel too old to load a ram disk") is quoted.
  EXPECT_NE(guest.error().find("| qemu"), std::string::npos) << guest.error();
  EXPECT_TRUE(our_qemu_processes().empty());
  EXPECT_TRUE(io::no_namespaces_left_by_this_process());
}

}  // namespace
}  // namespace mr::dut
