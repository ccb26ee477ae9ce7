// File: dut_port.h
//
// What the engine needs of a device under test, whatever it is: the embedded reference
// on a virtual clock, or a remote agent with packets on an interface. Control goes through
// the DUT control protocol (JSON requests, docs/dut-control-protocol.md); packets through
// inject/receive on the port's own clock.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "harness/protocol/control_error.h"
#include "reference/error/expected.h"
#include "reference/wire/address.h"

namespace mr::engine {

struct DutFrame {
  std::vector<uint8_t> bytes;
  uint64_t t_ns = 0;  // arrival time on the port's clock
};

// The tester's and the DUT's link-level identity, from the PIXIT.
struct Endpoints {
  wire::MacAddress tester_mac;
  wire::MacAddress dut_mac;
  wire::Ipv4Address tester_ip;
  wire::Ipv4Address dut_ip;
};

using ControlReply = Expected<nlohmann::json, protocol::ControlError>;

// A control request on its way to the DUT. Its reply is taken without blocking, so that the
// caller can keep the exchange going (the tester's ACKs, its READ responses) during the
// round trip: on a real-clock bed that trip takes milliseconds, and a DUT's ACK timer runs.
class PendingControl {
 public:
  virtual ~PendingControl() = default;
  // The reply once the DUT has given it; nullopt at once while it has not.
  virtual std::optional<ControlReply> try_take() = 0;
};

// A reply that was there at once: ports whose DUT answers in no time on their clock.
class AnsweredControl final : public PendingControl {
 public:
  explicit AnsweredControl(ControlReply reply) : reply_(std::move(reply)) {}
  std::optional<ControlReply> try_take() override { return std::move(reply_); }

 private:
  ControlReply reply_;
};

class DutPort {
 public:
  virtual ~DutPort() = default;

  // One request of the control protocol ({"op": ..., ...}); the reply's fields, or the
  // protocol's error: its code (EINVAL, ENOSPC, ...), so that the engine can tell a DUT out
  // of resources from a refused request, and its field and message for people. Calls that
  // wait on the DUT (poll_cq with timeout_ms) let time pass.
  virtual ControlReply control(nlohmann::json request) = 0;
  // The same request, sent now and answered later (PendingControl). A port whose control
  // takes no time on its clock answers at once, which is what this default does.
  virtual std::unique_ptr<PendingControl> send_control(nlohmann::json request) {
    return std::make_unique<AnsweredControl>(control(std::move(request)));
  }

  // A frame from the tester to the DUT, now. Returns the time it was handed to the link,
  // taken before the send so that no answer can seem to precede its stimulus.
  virtual uint64_t inject(std::span<const uint8_t> frame) = 0;
  // The next frame the DUT sent that arrives no later than `deadline_ns`; lets time pass
  // up to the deadline when none is there yet. nullopt when none arrived by then.
  virtual std::optional<DutFrame> receive(uint64_t deadline_ns) = 0;
  // Lets time pass until `t_ns` (frames the DUT sends meanwhile stay queued).
  virtual void wait_until(uint64_t t_ns) = 0;
  virtual uint64_t now_ns() = 0;
  // Frames the capture lost (libpcap drop counters); loss makes a verdict inconclusive.
  virtual uint64_t capture_drops() { return 0; }
  // Puts the DUT back to a clean state between tests.
  virtual Expected<void, std::string> reset() = 0;
};

// A layer of the engine's chain between the tester and the DUT (the bottleneck, the trace
// judge): every call goes on to the port it wraps unless the layer overrides it.
class ForwardingPort : public DutPort {
 public:
  ControlReply control(nlohmann::json request) override {
    return inner_.control(std::move(request));
  }
  std::unique_ptr<PendingControl> send_control(nlohmann::json request) override {
    return inner_.send_control(std::move(request));
  }
  uint64_t inject(std::span<const uint8_t> frame) override { return inner_.inject(frame); }
  std::optional<DutFrame> receive(uint64_t deadline_ns) override {
    return inner_.receive(deadline_ns);
  }
  void wait_until(uint64_t t_ns) override { inner_.wait_until(t_ns); }
  uint64_t now_ns() override { return inner_.now_ns(); }
  uint64_t capture_drops() override { return inner_.capture_drops(); }
  Expected<void, std::string> reset() override { return inner_.reset(); }

 protected:
  explicit ForwardingPort(DutPort& inner) : inner_(inner) {}
  DutPort& inner() { return inner_; }

 private:
  DutPort& inner_;
};

}  // namespace mr::engine
