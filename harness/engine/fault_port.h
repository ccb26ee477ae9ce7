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
// Beside the keyed events, a direction may carry seeded random impairment (`impair dir=dut
// loss=2% reorder=1%`, or of one plane or EV: `impair dir=dut plane=3 loss=100%`):
// io::ImpairmentPolicy decides the fate of every frame no armed event takes, with the same actions
// (one vocabulary: io::ImpairmentAction) and a seed the report logs. A frame it holds back for
// reordering follows the next frame of its direction, or goes out after kMaxHoldNs when none comes.
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
#include "reference/io/impairment.h"

namespace mr::engine {

// What a fault does to a frame: the impairment vocabulary of reference/io (kPass is never
// an event's action).
using FaultAction = io::ImpairmentAction;
enum class FaultDirection : uint8_t { kTester, kDut };  // tester -> DUT, DUT -> tester

// drop, duplicate, delay, reorder, corrupt, ecn.
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
  bool random = false;                // decided by an `impair` policy, not keyed
};

// The frames an impairment acts on: every frame, or the Ext frames (those with an MXH:
// requests, PROBE, CREDIT, RESYNC; an ACK carries none) on one plane or with one EV, as a
// failed plane or path of a fabric drops them.
struct PathSelector {
  std::optional<uint8_t> plane;
  std::optional<uint16_t> ev;

  bool every_frame() const { return !plane && !ev; }
  bool selects(std::optional<uint8_t> frame_plane, std::optional<uint16_t> frame_ev) const;
  std::string to_string() const;  // "", "plane 3", "EV 0xc103", "plane 3 EV 0xc103"
  friend bool operator==(const PathSelector&, const PathSelector&) = default;
};

// One direction's seeded random impairment, from an `impair` line.
struct Impairment {
  io::ImpairmentProbabilities rates;
  uint64_t seed = 0;
  uint64_t delay_ns = 100'000;  // what a `delay` adds
  int line = 0;
  PathSelector on;
};

class FaultPort final : public DutPort {
 public:
  using FaultCallback = std::function<void(const FaultEvent& event,
                                           const std::vector<uint8_t>& frame, uint64_t t_ns)>;

  FaultPort(DutPort& inner, FaultCallback on_fault)
      : inner_(inner), on_fault_(std::move(on_fault)) {}

  void arm(const FaultEvent& event) { armed_.push_back(event); }
  // Random impairment of one direction's frames that `impairment.on` selects from now on, in
  // place of the one that had the same selector. A frame takes the newest impairment whose
  // plane or EV selects it, else the one for every frame, else none.
  void impair(FaultDirection direction, const Impairment& impairment);
  // Ends the direction's impairment with this selector, or every one (nullopt).
  void end_impairment(FaultDirection direction, const std::optional<PathSelector>& on);
  // Events armed but never fired (the frame never came): the report names them.
  const std::vector<FaultEvent>& unfired() const { return armed_; }

  ControlReply control(nlohmann::json request) override;
  std::unique_ptr<PendingControl> send_control(nlohmann::json request) override;
  uint64_t inject(std::span<const uint8_t> frame) override;
  std::optional<DutFrame> receive(uint64_t deadline_ns) override;
  void wait_until(uint64_t t_ns) override;
  uint64_t now_ns() override { return inner_.now_ns(); }
  uint64_t capture_drops() override { return inner_.capture_drops(); }
  Expected<void, std::string> reset() override;

 private:
  static constexpr uint64_t kNever = UINT64_MAX;
  static constexpr uint64_t kMaxHoldNs = 200'000;  // a random reorder's longest hold

  struct Held {
    std::vector<uint8_t> bytes;
    uint64_t release_ns = kNever;  // kDelay, or the end of a random reorder's hold
    bool behind_next = false;      // kReorder: released after the next frame of its direction
  };
  struct Policy {
    io::ImpairmentPolicy policy;
    Impairment impairment;
  };

  // What the fault layer keys a frame by (nullopt: not a RoCE frame), decoded once.
  struct FrameKeys {
    uint32_t dqpn = 0;
    uint32_t psn = 0;
    std::optional<uint8_t> plane;  // MXH
    std::optional<uint16_t> ev;
  };
  static std::optional<FrameKeys> keys_of(std::span<const uint8_t> frame);
  // The armed event this frame triggers, removed from the armed list (nullopt: none).
  std::optional<FaultEvent> match(FaultDirection direction, const std::optional<FrameKeys>& keys);
  std::vector<Policy>& policies(FaultDirection direction) {
    return direction == FaultDirection::kTester ? tester_policies_ : dut_policies_;
  }
  // Sends the delayed tester frames whose time has come.
  void release_due_tester_frames();
  void send(std::span<const uint8_t> frame);
  // A frame no event took, through the direction's random impairment if one is active:
  // what goes on now is appended to `now_out`, what is held goes to `held`.
  void impair_frame(FaultDirection direction, const std::optional<FrameKeys>& keys,
                    std::vector<uint8_t> bytes, uint64_t t_ns,
                    std::vector<std::vector<uint8_t>>& now_out, std::deque<Held>& held);

  DutPort& inner_;
  FaultCallback on_fault_;
  std::vector<FaultEvent> armed_;
  std::map<std::tuple<FaultDirection, uint32_t, uint32_t>, uint32_t> transmissions_;
  std::deque<Held> held_tester_;         // tester -> DUT frames delayed or held back
  std::deque<DutFrame> ready_dut_;       // DUT -> tester frames due for the engine
  std::deque<Held> held_dut_;            // DUT -> tester frames delayed or held back
  std::vector<Policy> tester_policies_;  // path-selected ones first, newest first
  std::vector<Policy> dut_policies_;
};

}  // namespace mr::engine
