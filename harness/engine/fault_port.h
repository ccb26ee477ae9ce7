// File: fault_port.h
//
// Fault events of a test case (`event drop A dir=tester psn=P+2 tx=1`, docs/test-language.md)
// applied between the engine and the DUT: a DutPort that wraps the real one and, for the
// frame of a given direction, QP and PSN on its n-th transmission, drops it, duplicates
// it, delays it, holds it back behind the next frame (reorder), flips a bit in it (corrupt:
// its ICRC then fails) or marks it ECN Congestion Experienced (the ICRC masks the ECN bits,
// so the frame stays valid). Transmissions are counted per (direction, destination QPN,
// PSN) from the start of the test; an event fires once, on the first frame that matches
// after its line was reached.
//
// Every fault that fires is reported through `on_fault`, so the test's packet ladder and
// pcapng say what the harness did to the exchange.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "harness/engine/dut_port.h"

namespace mr::engine {

enum class FaultAction : uint8_t { kDrop, kDuplicate, kDelay, kReorder, kCorrupt, kEcn };
enum class FaultDirection : uint8_t { kTester, kDut };  // tester -> DUT, DUT -> tester

Expected<FaultAction, std::string> fault_action_from_name(const std::string& name);

struct FaultEvent {
  FaultAction action = FaultAction::kDrop;
  FaultDirection direction = FaultDirection::kTester;
  uint32_t dqpn = 0;      // the BTH DestQP of the frames it applies to
  uint32_t psn = 0;       // 24-bit
  uint32_t tx = 1;        // the transmission number (1: the first time this PSN is sent)
  uint64_t delay_ns = 0;  // kDelay
  std::optional<size_t> byte_offset;  // kCorrupt: the frame byte to flip (default: the last
                                      // byte before the ICRC)
  int line = 0;                       // the script line, for the report
};

class FaultPort final : public DutPort {
 public:
  using FaultCallback = std::function<void(const FaultEvent& event,
                                           const std::vector<uint8_t>& frame, uint64_t t_ns)>;

  FaultPort(DutPort& inner, FaultCallback on_fault)
      : inner_(inner), on_fault_(std::move(on_fault)) {}

  void arm(const FaultEvent& event) { armed_.push_back(event); }
  // Events armed but never fired (the frame never came): the report names them.
  const std::vector<FaultEvent>& unfired() const { return armed_; }

  Expected<nlohmann::json, agent::ControlError> control(nlohmann::json request) override;
  uint64_t inject(std::span<const uint8_t> frame) override;
  std::optional<DutFrame> receive(uint64_t deadline_ns) override;
  void wait_until(uint64_t t_ns) override;
  uint64_t now_ns() override { return inner_.now_ns(); }
  uint64_t capture_drops() override { return inner_.capture_drops(); }
  Expected<void, std::string> reset() override;

 private:
  struct Held {
    std::vector<uint8_t> bytes;
    uint64_t release_ns = 0;   // kDelay
    bool behind_next = false;  // kReorder: released after the next frame of its direction
  };

  // The armed event this frame triggers, removed from the armed list (nullopt: none).
  std::optional<FaultEvent> match(FaultDirection direction, std::span<const uint8_t> frame);
  // Sends the delayed tester frames whose time has come.
  void release_due_tester_frames();
  void send(std::span<const uint8_t> frame);

  DutPort& inner_;
  FaultCallback on_fault_;
  std::vector<FaultEvent> armed_;
  std::map<std::tuple<FaultDirection, uint32_t, uint32_t>, uint32_t> transmissions_;
  std::deque<Held> held_tester_;    // tester -> DUT frames delayed or held back
  std::deque<DutFrame> ready_dut_;  // DUT -> tester frames due for the engine
  std::deque<Held> held_dut_;       // DUT -> tester frames delayed or held back
};

// Marks an IPv4 or IPv6 RoCEv2 frame ECN Congestion Experienced (IPv4: the header checksum
// is recomputed). False when the frame has no IP header.
bool mark_ecn_ce(std::vector<uint8_t>& frame);

}  // namespace mr::engine
