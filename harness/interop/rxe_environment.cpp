#include "harness/interop/rxe_environment.h"

#include "reference/io/namespaced_pcap_link.h"

namespace mr::interop {
namespace {

constexpr uint32_t kGuestMtu = 9000;  // path MTU 4096 needs more than 4096 + headers

// Only the guest's RoCE frames: not its TCP control connection, not the host's.
io::PcapLinkOptions dut_frames(const wire::MacAddress& guest_mac) {
  io::PcapLinkOptions o;
  o.filter = "ether src " + guest_mac.to_string() + " and udp port 4791";
  o.buffer_bytes = 32 << 20;  // a 1 MiB READ response arrives in one burst
  return o;
}

}  // namespace

Expected<std::unique_ptr<RxeEnvironment>, std::string> RxeEnvironment::start(
    const RxeEnvironmentOptions& options) {
  std::unique_ptr<RxeEnvironment> env(new RxeEnvironment());
  dut::RxeGuestOptions o;
  o.metaroce_binary = options.metaroce_binary;
  o.console_log = options.console_log;
  o.netdev_mtu = kGuestMtu;
  o.boot_timeout_ms = 240'000;  // TCG on a loaded 2-core machine
  o.seed = options.seed;
  auto guest = dut::RxeGuest::start(o);
  if (!guest) return Unexpected("rxe guest: " + guest.error());
  env->guest_.emplace(std::move(*guest));
  const dut::RxeGuest& g = *env->guest_;
  std::optional<Expected<dut::DutControl, protocol::ControlError>> control;
  // The control socket must be created inside the guest's namespace.
  auto joined = g.netns().run_inside([&] {
    control.emplace(dut::DutControl::connect(o.guest_ip.to_string(), g.agent_port(), g.token()));
  });
  if (!joined) return Unexpected("rxe guest: " + joined.error());
  if (!*control) {
    return Unexpected("rxe guest: the agent did not answer: " + (*control).error().to_string() +
                      " (console: " + g.console_log() + ")");
  }
  env->control_.emplace(std::move(**control));
  auto link = io::open_pcap_link_in(g.netns(), g.tap(), dut_frames(o.guest_mac));
  if (!link) return Unexpected("rxe guest: " + g.tap() + ": " + link.error());
  env->link_.emplace(std::move(*link));
  return env;
}

RxeEnvironment::~RxeEnvironment() {
  control_.reset();
  link_.reset();
  guest_.reset();
}

MatrixEnvironment RxeEnvironment::matrix_environment() {
  const auto& o = guest_->options();
  return {.wire = *link_,
          .control = *control_,
          .reference_id = {.mac = o.tester_mac, .ip = o.tester_ip},
          .dut_id = {.mac = o.guest_mac, .ip = o.guest_ip},
          .dut_name = "rxe",
          .dut_description = "Linux " + guest_->kernel_version() +
                             " rdma_rxe in QEMU (TCG), verbs agent, netdev MTU " +
                             std::to_string(kGuestMtu)};
}

}  // namespace mr::interop
