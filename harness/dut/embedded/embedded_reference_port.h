// File: embedded_reference_port.h
//
// The engine's port onto the embedded reference DUT (embedded_reference_dut.h), the
// default device under test. Waiting is advancing the virtual clock to the next event (a
// delivery, a device timer, or the deadline), so a control request that waits (poll_cq,
// get_cq_event) returns as soon as the device has what it waits for.
#pragma once

#include <deque>
#include <memory>
#include <optional>

#include "harness/dut/embedded/embedded_reference_dut.h"
#include "harness/engine/dut_port.h"
#include "harness/engine/pixit.h"
#include "reference/transport/decision.h"

namespace mr::dut {

struct EmbeddedOptions {
  uint64_t seed = 1;
  uint64_t link_latency_ns = 1'000;
  std::vector<std::string> mutants;  // reference mutants to switch on
  // Where the device notes which mutants' decisions it read (reference/transport/decision.h).
  std::shared_ptr<transport::DecisionLog> decision_log;
};

class EmbeddedReferencePort final : public engine::DutPort {
 public:
  EmbeddedReferencePort(const engine::Pixit& pixit, const EmbeddedOptions& options);

  Expected<nlohmann::json, protocol::ControlError> control(nlohmann::json request) override;
  uint64_t inject(std::span<const uint8_t> frame) override;
  std::optional<engine::DutFrame> receive(uint64_t deadline_ns) override;
  void wait_until(uint64_t t_ns) override;
  uint64_t now_ns() override { return dut_.clock().now_ns(); }
  Expected<void, std::string> reset() override;

 private:
  // Runs the device and collects what reaches the tester, at the current time.
  void settle();
  // Advances to the next event no later than `limit`; false when there is none before it.
  bool step(uint64_t limit);
  Expected<nlohmann::json, protocol::ControlError> call(const nlohmann::json& request);

  EmbeddedReferenceDut dut_;
  std::deque<engine::DutFrame> inbox_;  // DUT -> tester, in arrival order
  uint64_t next_id_ = 1;
};

}  // namespace mr::dut
