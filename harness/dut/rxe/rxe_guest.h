// File: rxe_guest.h
//
// Linux Soft-RoCE (rdma_rxe) as a device under test (issue #7): a QEMU (TCG) guest that
// boots Debian's kernel with the initramfs of tools/dut-vm/build-image.sh, adds rxe0 on its
// virtio NIC and runs `metaroce agent` on it. The guest's NIC is a tap device, "tap0", in a
// network namespace of our own; the host's end of the tap carries host_ip (TCP control
// only), and the tester's RoCE identity (tester_ip/tester_mac) is played on the tap by the
// engine, never by the host kernel.
//
//   RxeGuestOptions o{.metaroce_binary = "bazel-bin/harness/cli/metaroce", ...};
//   auto guest = RxeGuest::start(o);                      // builds or reuses the image, boots
//   if (!guest) log(guest.error());                       // quotes the last console lines
//   guest->netns().run_inside([&] {                       // sockets must open in the netns
//     control = DutControl::connect(o.guest_ip.to_string(), guest->agent_port(),
//                                   guest->token()); });
//
// Nothing outlives the RxeGuest: the destructor stops QEMU (SIGTERM, a bounded wait, then
// SIGKILL) and deletes the tap and the namespace. QEMU dies with the thread that called
// start() (PR_SET_PDEATHSIG), so a killed harness leaves no guest running: call start()
// from a thread that lives as long as the guest, usually the main thread.
//
// Exec mode (issue #9): with options.exec set, the guest runs that shell command line (an
// unmodified rdma-core or perftest tool) once rxe0 is ACTIVE instead of the agent; start()
// returns at the ready marker and wait_exec() collects the command's output and status.
//
//   RxeGuestOptions o{.metaroce_binary = "/usr/bin/true", .exec = "ibv_devinfo -d rxe0"};
//   auto guest = RxeGuest::start(o);
//   auto done = guest->wait_exec(60'000);   // {status 0, output "hca_id: rxe0 ..."}
//
// Environment: METAROCE_DUT_VM_DIR overrides where build-image.sh is found;
// METAROCE_DUT_VM_KERNEL overrides the kernel image (default: the newest /boot/vmlinuz-*).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "reference/error/expected.h"
#include "reference/io/network_namespace.h"
#include "reference/wire/address.h"

namespace mr::dut {

struct RxeGuestOptions {
  std::string metaroce_binary;    // copied into the image ("" = this process's executable)
  std::string cache_dir;          // image cache (default ~/.cache/metaroce-dut-vm)
  std::string backend = "verbs";  // the agent backend inside the guest
  std::string console_log;        // where the guest's serial console is written ("" = a temp file)
  wire::Ipv4Address host_ip{{198, 18, 0, 3}};   // on the tap, host kernel, TCP control only
  wire::Ipv4Address guest_ip{{198, 18, 0, 2}};  // eth0 in the guest
  wire::MacAddress guest_mac{{0x52, 0x54, 0x00, 0x12, 0x34, 0x56}};  // QEMU's virtio-net mac=
  wire::Ipv4Address tester_ip{{198, 18, 0, 1}};  // a static neighbour in the guest
  wire::MacAddress tester_mac{{0x02, 0x00, 0x00, 0x00, 0x00, 0x01}};
  std::optional<wire::Ipv6Address> tester_ip6;  // a static IPv6 neighbour too, when given
  uint32_t netdev_mtu = 1500;
  uint16_t agent_port = 7471;
  uint64_t boot_timeout_ms = 180'000;
  uint64_t seed = 1;  // the agent's --seed; the token is random (and logged)
  // Exec mode: a shell command line run instead of the agent ("" = the agent). In exec mode
  // metaroce_binary is not run, so any executable (/usr/bin/true) keeps the image cached.
  std::string exec;
  // Called once the namespace and its tap exist, before QEMU starts: where a caller opens
  // the sockets and captures that must be in place before the guest's first packet.
  std::function<Expected<void, std::string>(const io::NetworkNamespace& netns,
                                            const std::string& tap)>
      on_network_ready;
};

// What an exec-mode command did: its exit status and its console output.
struct GuestExecResult {
  int status = -1;
  std::string output;  // the lines between the exec-begin and exec-end markers
};

class RxeGuest {
 public:
  // Builds (or finds in the cache) the image, creates the namespace and tap, boots QEMU and
  // waits, bounded by boot_timeout_ms from QEMU's start, for the ready marker on the console
  // and for the agent's TCP port (the image build has a bound of its own, 10 minutes). On
  // failure nothing is left behind and the error quotes the last 20 console lines.
  static Expected<RxeGuest, std::string> start(const RxeGuestOptions& options);

  RxeGuest(RxeGuest&& other) noexcept;
  RxeGuest& operator=(RxeGuest&& other) noexcept;
  RxeGuest(const RxeGuest&) = delete;
  RxeGuest& operator=(const RxeGuest&) = delete;
  // Asks the agent nothing: SIGTERM to QEMU, a bounded wait, SIGKILL; then deletes the
  // tap and the namespace.
  ~RxeGuest();

  const io::NetworkNamespace& netns() const { return *netns_; }
  const std::string& tap() const { return tap_; }  // "tap0" inside netns()
  const std::string& token() const { return token_; }
  uint16_t agent_port() const { return options_.agent_port; }
  const RxeGuestOptions& options() const { return options_; }
  const std::string& kernel_version() const { return kernel_version_; }  // from the marker
  const std::string& console_log() const { return console_log_; }

  // Exec mode: waits at most timeout_ms for the command's exit marker (then, bounded, for
  // QEMU to power off). The error quotes the last console lines.
  Expected<GuestExecResult, std::string> wait_exec(uint64_t timeout_ms);

 private:
  // How the boot wait ends well: the guest runs (its agent is up, or rxe0 is ready for the
  // exec command), or, in exec mode, it has already run the command and powered off.
  enum class Booted { kRunning, kPoweredOff };

  RxeGuest() = default;
  // start()'s steps once the image is built, in order.
  // The console log: options.console_log, else a temp file of ours (owns_console_log_).
  Expected<void, std::string> open_console_log();
  // The namespace and its tap (host_ip, netdev_mtu), then options.on_network_ready.
  Expected<void, std::string> set_up_network();
  // QEMU in the namespace; the time it started, from which boot_timeout_ms counts.
  Expected<std::chrono::steady_clock::time_point, std::string> launch_qemu(
      const std::vector<std::string>& argv, const std::string& image);
  // Bounded by boot_timeout_ms: the ready marker (kernel_version_), then the agent's port.
  // A QEMU that exits, or a guest that reports an error, fails at once, quoting the console.
  Expected<Booted, std::string> wait_for_boot(std::chrono::steady_clock::time_point qemu_started);
  void log_ready(int64_t boot_ms, int64_t build_ms) const;
  void stop();

  RxeGuestOptions options_;
  std::optional<io::NetworkNamespace> netns_;
  std::string tap_ = "tap0";
  std::string token_;
  std::string kernel_version_;
  std::string console_log_;
  bool owns_console_log_ = false;  // a temp file of ours, removed with the guest
  pid_t qemu_pid_ = -1;
};

}  // namespace mr::dut
