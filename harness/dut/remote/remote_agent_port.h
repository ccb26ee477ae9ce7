// File: remote_agent_port.h
//
// A device under test behind a remote agent: control requests over the DUT control
// protocol (TCP, DutControl), the DUT's packets on a live interface through libpcap (a veth
// or a tap inside a network namespace the harness created, or a NIC cabled to the DUT), and
// the real clock. This is the DutPort of `./metaroce run --dut agent://HOST:PORT` and of
// `--dut rxe`; the engine cannot tell it from the embedded reference except by timing.
//
// Only the DUT's RoCEv2 frames reach the engine: the capture filter keeps frames whose
// source MAC is the DUT's and that carry UDP 4791 (the control connection, ARP and anything
// else the DUT host says stay out of the exchange being judged).
//
// Usage:
//   auto control = DutControl::connect("198.18.0.2", 7471, token);
//   auto link = io::open_pcap_link_in(ns, "tap0", remote_capture_options(pixit.dut_mac));
//   RemoteAgentPort port(std::move(*control), std::move(*link), {});
#pragma once

#include <array>
#include <deque>
#include <future>
#include <mutex>
#include <string>

#include "harness/dut/dut_control.h"
#include "harness/engine/dut_port.h"
#include "reference/io/dilated_clock.h"
#include "reference/io/pcap_link.h"

namespace mr::dut {

// libpcap options for the interface facing the DUT: only its RoCEv2 frames.
io::PcapLinkOptions remote_capture_options(const wire::MacAddress& dut_mac);

struct RemotePortOptions {
  // After a reset, frames the DUT still sends for the previous test (retransmissions
  // already in flight) are drained for this long before the next test starts.
  uint64_t reset_drain_ms = 50;
  // The agent's clock runs this many times slower than real time (its capabilities'
  // time_dilation): the port's clock, the frames' stamps and every wait follow it, so the
  // engine judges the same times as on a bed fast enough for the DUT's timers.
  uint32_t time_dilation = 1;
};

class RemoteAgentPort final : public engine::DutPort {
 public:
  RemoteAgentPort(DutControl control, io::PcapLink link, const RemotePortOptions& options);

  engine::ControlReply control(nlohmann::json request) override;
  // The request goes out on a thread of its own and the caller goes on receiving; only one
  // request is in flight at a time (the next call waits for the previous reply).
  std::unique_ptr<engine::PendingControl> send_control(nlohmann::json request) override;
  uint64_t inject(std::span<const uint8_t> frame) override;
  std::optional<engine::DutFrame> receive(uint64_t deadline_ns) override;
  void wait_until(uint64_t t_ns) override;
  // CLOCK_REALTIME in ns (dilated as the options say): the clock libpcap stamps captured
  // frames with, so that arrival times and deadlines compare directly.
  uint64_t now_ns() override;
  // Frames libpcap lost plus frames the tester failed to send: either way the exchange on
  // the wire is not the one the script describes, so the verdict becomes inconclusive.
  uint64_t capture_drops() override;
  Expected<void, std::string> reset() override;

  uint64_t send_failures() const { return send_failures_; }

 private:
  // Moves whatever the capture holds into the inbox, waiting at most until `deadline_ns`
  // for the first frame; returns how many arrived.
  size_t collect(uint64_t deadline_ns);
  // The request on a thread of its own; its reply or the agent's error.
  std::future<engine::ControlReply> call_async(nlohmann::json request);

  DutControl control_;
  std::mutex control_mutex_;  // one request in flight on control_
  io::PcapLink link_;
  RemotePortOptions options_;
  io::TimeDilation dilation_;
  std::deque<engine::DutFrame> inbox_;
  uint64_t send_failures_ = 0;
};

}  // namespace mr::dut
