#include "harness/dut/dut_session.h"

#include "harness/dut/agent_url.h"
#include "harness/dut/dut_addresses.h"
#include "harness/dut/embedded/embedded_reference_port.h"
#include "harness/dut/local/local_agent.h"
#include "harness/dut/remote/remote_agent_port.h"
#include "reference/io/namespaced_pcap_link.h"

namespace mr::dut {

namespace {

Expected<std::string, std::string> read_token(const DutSpec& spec) {
  if (!spec.token.empty()) return spec.token;
  if (spec.token_file.empty())
    return Unexpected(std::string("--dut agent:// needs --token or --token-file"));
  auto token = read_token_file(spec.token_file);
  if (!token) return Unexpected("--token-file " + token.error());
  if (token->empty()) return Unexpected("--token-file " + spec.token_file + ": the token is empty");
  return token;
}

constexpr std::string_view kVerbsPrefix = "verbs:";

// "verbs:DEVICE": the device's name as the kernel gives it (mlx5_0, rxe0, irdma1).
Expected<std::string, std::string> local_verbs_device(const std::string& dut) {
  const std::string device = dut.substr(kVerbsPrefix.size());
  const bool plain = !device.empty() && device.size() <= 64 &&
                     device.find_first_not_of(
                         "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                         "0123456789_-.") == std::string::npos;
  if (!plain)
    return Unexpected("--dut " + dut +
                      ": expected verbs:DEVICE, an RDMA device of this host (ibv_devices lists "
                      "them)");
  return device;
}

uint32_t link_mtu(const engine::Pixit& pixit) {
  const auto& link = pixit.raw.value("link", nlohmann::json::object());
  return link.value("mtu", 1500U);
}

}  // namespace

Expected<std::unique_ptr<DutSession>, std::string> DutSession::open(const DutSpec& spec,
                                                                    engine::Pixit& pixit) {
  auto s = std::make_unique<DutSession>();
  if (spec.dut == "reference") {
    s->port_ = std::make_unique<EmbeddedReferencePort>(
        pixit, EmbeddedOptions{.seed = spec.seed, .mutants = spec.mutants});
    s->fresh_port_ = [pixit, mutants = spec.mutants](
                         uint64_t seed) -> Expected<std::unique_ptr<engine::DutPort>, std::string> {
      return std::make_unique<EmbeddedReferencePort>(
          pixit, EmbeddedOptions{.seed = seed, .mutants = mutants});
    };
    s->description_ = "reference (embedded, in-memory link, virtual clock)";
    return s;
  }
  if (!spec.mutants.empty())
    return Unexpected(
        std::string("--mutant works on the embedded reference only (a remote reference agent takes "
                    "--mutant itself: ./metaroce agent --backend reference --mutant NAME)"));

  if (spec.dut == "rxe") {
    RxeGuestOptions o;
    o.backend = spec.rxe_backend;
    o.console_log = spec.console_log;
    o.guest_ip = pixit.dut_ip;
    o.guest_mac = pixit.dut_mac;
    o.tester_ip = pixit.tester_ip;
    o.tester_mac = pixit.tester_mac;
    o.tester_ip6 = pixit.tester_ip6;
    o.netdev_mtu = link_mtu(pixit);
    o.seed = spec.seed;
    auto guest = RxeGuest::start(o);
    if (!guest) return Unexpected("rxe guest: " + guest.error());
    s->guest_.emplace(std::move(*guest));
    const RxeGuest& g = *s->guest_;
    std::optional<Expected<DutControl, protocol::ControlError>> control;
    auto joined = g.netns().run_inside([&] {
      control.emplace(DutControl::connect(o.guest_ip.to_string(), g.agent_port(), g.token()));
    });
    if (!joined) return Unexpected("rxe guest: " + joined.error());
    if (!*control)
      return Unexpected("rxe guest: the agent did not answer: " + (*control).error().to_string() +
                        " (console: " + g.console_log() + ")");
    auto link = io::open_pcap_link_in(g.netns(), g.tap(), remote_capture_options(pixit.dut_mac));
    if (!link) return Unexpected("rxe guest: " + g.tap() + ": " + link.error());
    s->port_ = std::make_unique<RemoteAgentPort>(std::move(**control), std::move(*link),
                                                 RemotePortOptions{});
    s->description_ = "rxe (Linux " + g.kernel_version() + " in QEMU TCG, agent backend " +
                      spec.rxe_backend + ", console " + g.console_log() + ")";
    return s;
  }

  if (spec.dut.starts_with(kVerbsPrefix)) {
    auto device = local_verbs_device(spec.dut);
    if (!device) return Unexpected(device.error());
    if (spec.iface.empty())
      return Unexpected("--dut " + spec.dut +
                        ": give --iface, the interface facing the device (another port cabled "
                        "to it, or a port on its switch)");
    auto agent = LocalAgent::start(
        {.args = {"--backend", "verbs", "--device", *device}, .log_path = spec.agent_log});
    if (!agent) return Unexpected("--dut " + spec.dut + ": " + agent.error());
    s->local_agent_.emplace(std::move(*agent));
    const LocalAgent& a = *s->local_agent_;
    auto opened = open_agent(*s, spec, pixit, "127.0.0.1", a.port(), a.token());
    if (!opened) return Unexpected(opened.error());
    s->description_ = spec.dut + " (this host's verbs device, agent pid " +
                      std::to_string(a.pid()) + " started by the run, log " + a.log_path() +
                      ", packets on " + spec.iface + ", real clock)";
    return s;
  }

  auto url = parse_agent_url(spec.dut);
  if (!url) return Unexpected(url.error());
  auto token = read_token(spec);
  if (!token) return Unexpected(token.error());
  auto opened = open_agent(*s, spec, pixit, url->first, url->second, *token);
  if (!opened) return Unexpected(opened.error());
  s->description_ =
      spec.dut + " (remote agent, packets on " + spec.iface + ", real clock" +
      (s->time_dilation_ > 1 ? " dilated " + std::to_string(s->time_dilation_) + "x)" : ")");
  return s;
}

// An agent's DUT: the control connection, the DUT's addresses into the PIXIT, then the
// capture on --iface (its filter is the DUT's MAC).
Expected<void, std::string> DutSession::open_agent(DutSession& s, const DutSpec& spec,
                                                   engine::Pixit& pixit, const std::string& host,
                                                   uint16_t port, const std::string& token) {
  if (spec.iface.empty())
    return Unexpected("--dut " + spec.dut +
                      ": give --iface, the interface facing the DUT (to run inside a network "
                      "namespace: ip netns exec NS ./metaroce run ...)");
  auto control = DutControl::connect(host, port, token);
  if (!control) return Unexpected("--dut " + spec.dut + ": " + control.error().to_string());
  auto caps = typed_client(*control).capabilities();
  if (!caps) return Unexpected("--dut " + spec.dut + ": capabilities: " + caps.error().to_string());
  auto adopted = adopt_dut_addresses(
      pixit, *caps,
      {.pixit_named = spec.pixit_named, .pixit_path = spec.pixit_path, .dut = spec.dut});
  if (!adopted) return Unexpected(adopted.error());
  s.adopted_addresses_ = std::move(*adopted);
  // A dilated agent's times are judged in its time, with tolerances the PIXIT states for it:
  // a PIXIT written for another dilation would judge every window wrongly.
  const uint32_t pixit_dilation =
      pixit.raw.value("link", nlohmann::json::object()).value("time_dilation", 1U);
  if (pixit_dilation != caps->time_dilation)
    return Unexpected("--dut " + spec.dut + ": the agent's clock is dilated " +
                      std::to_string(caps->time_dilation) + "x (capabilities time_dilation) but " +
                      spec.pixit_path + " states link.time_dilation " +
                      std::to_string(pixit_dilation) + "; give a PIXIT for that dilation");
  auto link = io::PcapLink::open(spec.iface, remote_capture_options(pixit.dut_mac));
  if (!link) return Unexpected("--iface " + spec.iface + ": " + link.error());
  s.port_ =
      std::make_unique<RemoteAgentPort>(std::move(*control), std::move(*link),
                                        RemotePortOptions{.time_dilation = caps->time_dilation});
  s.time_dilation_ = caps->time_dilation;
  return {};
}

}  // namespace mr::dut
