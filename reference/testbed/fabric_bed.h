// File: fabric_bed.h
//
// Reference devices on the simulated multi-plane fabric (reference/io/fabric), in virtual
// time (issue 22). Endpoint e is a Device with the fabric's planes as its ports and the
// plan's shared address of endpoint e on all of them; a frame a device sends enters the
// fabric on the plane the device chose (Device::take_outbox(planes)), and a frame the fabric
// delivers to (plane, e) is received by device e. A port whose NIC ring is full keeps the
// rest in a transmit backlog, as a NIC's send queue does: nothing is lost before the first
// switch. A device's responder and requester take turns on a port (nic_arbiter). A
// port that goes down (a flap, a black-holed host cable) is told to the device within
// kPortPollNs, far inside T_PORT_DOWN_REACT (1 ms).
//
// The driver jumps the clock from event to event (the fabric's, the devices' timers); at a
// step only the devices that received a frame, were given work, or whose timer is due run,
// so a step costs what happens in it, not the number of endpoints.
//
//   FabricConfig f{.endpoints = 16, .seed = 7};
//   f.addressing.shared = true;   // create() requires it
//   auto bed = FabricBed::create(f, {.mxcap = wire::Mxcap{}}).value();
//   auto c = bed->connect(0, 1, {}).value();
//   bed->device(0).post_send(c.qp_a, wr);
//   bed->touch(0);
//   bed->run_until([&] { return done(); }, /*max_ns=*/1'000'000'000);
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "reference/error/expected.h"
#include "reference/io/clock.h"
#include "reference/io/fabric/fabric.h"
#include "reference/testbed/rc_connection.h"
#include "reference/transport/device.h"

namespace mr::testbed {

// What every device of the bed is (beyond its address, planes and seed).
struct BedDeviceOptions {
  std::optional<wire::Mxcap> mxcap;  // none: base RoCEv2 only
  transport::ext::ExtQpParameters ext;
  transport::DcqcnParameters dcqcn;
  bool dcqcn_enabled = true;  // notification and reaction point (base QPs)
  uint64_t seed = 1;          // device e gets seed + e
  uint32_t cq_depth = 1 << 16;
  // A device's responder (responses, ACK and NAK, CNP, CREDIT) and its requester take turns
  // on its ports, as a NIC's transmit arbiter serves them (TransmitClass::kResponse): an ACK
  // does not wait behind the requests queued before it. False: one FIFO per port, every
  // frame in the order the device made it.
  bool nic_arbiter = true;
};

class FabricBed {
 public:
  static constexpr uint64_t kPortPollNs = 10'000;

  // Errors name the field (the fabric's own, or "addressing.shared").
  static Expected<std::unique_ptr<FabricBed>, std::string> create(io::fabric::FabricConfig fabric,
                                                                  BedDeviceOptions devices);
  FabricBed(const FabricBed&) = delete;
  FabricBed& operator=(const FabricBed&) = delete;

  uint32_t endpoints() const { return static_cast<uint32_t>(devices_.size()); }
  transport::Device& device(uint32_t endpoint) { return *devices_[endpoint].device; }
  uint32_t cq(uint32_t endpoint) const { return devices_[endpoint].cq; }
  io::fabric::Fabric& fabric() { return *fabric_; }
  uint64_t now_ns() const { return clock_.now_ns(); }

  // An RC QP on each endpoint, registered regions, both at RTS (Ext where both offer it).
  Expected<RcConnection, std::string> connect(uint32_t a, uint32_t b, const ConnectOptions& o);
  // The caller posted work on this endpoint's device: run it at the next step.
  void touch(uint32_t endpoint);

  // Runs until done() (checked after every step) or until max_ns of virtual time from now
  // or nothing is left to happen. Returns whether done() became true.
  bool run_until(const std::function<bool()>& done, uint64_t max_ns);

  // Called after device e ran at `now` (received, timers, requesters): completions appear
  // only then, so a caller polls e's CQ here instead of every CQ at every step.
  std::function<void(uint32_t e, uint64_t now)> after_run;

  uint64_t steps() const { return steps_; }
  // Request packets (SEND, WRITE, READ request, atomic) the devices sent, retransmissions
  // included: beside the packets the messages need, what recovery cost.
  uint64_t request_frames() const { return request_frames_; }
  uint64_t backlog_high_water() const { return backlog_high_water_; }

 private:
  struct Endpoint {
    std::unique_ptr<transport::Device> device;
    uint32_t pd = 0;
    uint32_t cq = 0;
    std::optional<uint64_t> deadline;  // the device's next_deadline() when it last ran
    bool due = true;                   // run at the next step
  };

  FabricBed(io::fabric::FabricConfig fabric, BedDeviceOptions devices);
  void run_endpoint(uint32_t e, uint64_t now);
  void flush_backlogs();
  void poll_ports(uint64_t now);
  std::optional<uint64_t> next_time();

  io::VirtualClock clock_;
  io::fabric::FabricConfig config_;
  BedDeviceOptions options_;
  std::unique_ptr<io::fabric::Fabric> fabric_;
  std::vector<Endpoint> devices_;
  // Frames the NIC's rings did not take yet: a port's responder's, and its requester's.
  struct TransmitBacklog {
    std::deque<io::Frame> responses, requests;
    bool empty() const { return responses.empty() && requests.empty(); }
  };
  std::vector<TransmitBacklog> backlog_;  // plane-major, like the fabric's ports
  std::vector<uint32_t> backlogged_;      // indices of non-empty backlogs
  std::vector<uint8_t> port_up_;          // plane-major, as last told to the device
  bool watch_ports_ = false;              // the config has faults that take ports down
  uint64_t next_port_poll_ns_ = 0;
  uint64_t steps_ = 0;
  uint64_t backlog_high_water_ = 0;
  uint64_t request_frames_ = 0;
};

}  // namespace mr::testbed
