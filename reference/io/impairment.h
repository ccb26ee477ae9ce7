// File: impairment.h
//
// What a faulty network does to frames, reproducibly: drop, duplicate, reorder (swap with
// the next frame), delay (extra ns), corrupt (flip one random byte after the Ethernet
// header) and ECN-mark (Congestion Experienced, as a congested switch marks; ecn_mark.h). One
// ImpairmentPolicy is applied per direction of a MemoryLinkPair.
//
// Decisions come from a seeded std::mt19937_64, so a failing run is replayed by logging
// seed() and reusing it. A test that needs one exact fault (Lumina-style "drop the 2nd
// transmission of PSN 5") sets an override: it sees every frame with its index in this
// direction and either decides (returns an action) or defers to the probabilities
// (returns nullopt).
//
// Usage:
//   ImpairmentPolicy policy(seed, {.drop = 0.01, .reorder = 0.01});
//   policy.set_override([](const Frame& f, uint64_t i) -> std::optional<ImpairmentAction> {
//     if (i == 7) return ImpairmentAction::kDrop;
//     return std::nullopt;
//   });
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <string_view>
#include <vector>

#include "reference/io/link.h"

namespace mr::io {

enum class ImpairmentAction : uint8_t {
  kPass,
  kDrop,
  kDuplicate,
  kReorder,
  kDelay,
  kCorrupt,
  kEcn
};
inline constexpr size_t kImpairmentActionCount = 7;
std::string_view impairment_action_name(ImpairmentAction action);

// Each in [0, 1]; one uniform draw per frame picks at most one action, in this order, so
// the sum should not exceed 1 (whatever lies beyond 1 is never reached).
struct ImpairmentProbabilities {
  double drop = 0;
  double duplicate = 0;
  double reorder = 0;
  double delay = 0;
  double corrupt = 0;
  double ecn = 0;  // last: a policy without it draws exactly as before it existed
};

struct ImpairmentCounters {
  uint64_t frames = 0;                                     // offered to the policy
  std::array<uint64_t, kImpairmentActionCount> actions{};  // indexed by ImpairmentAction
  uint64_t count(ImpairmentAction a) const { return actions[static_cast<size_t>(a)]; }
};

// A frame the policy lets through, and how much later than normal it should arrive.
struct ImpairedFrame {
  Frame frame;
  uint64_t extra_delay_ns = 0;
};

class ImpairmentPolicy {
 public:
  using Override =
      std::function<std::optional<ImpairmentAction>(const Frame& frame, uint64_t frame_index)>;

  explicit ImpairmentPolicy(uint64_t seed, ImpairmentProbabilities probabilities = {},
                            uint64_t delay_ns = 1'000'000);

  void set_override(Override decide) { override_ = std::move(decide); }
  uint64_t seed() const { return seed_; }
  const ImpairmentProbabilities& probabilities() const { return probabilities_; }
  const ImpairmentCounters& counters() const { return counters_; }
  // What the latest apply() did (kPass before the first).
  ImpairmentAction last_action() const { return last_action_; }

  // Decides the fate of one frame and appends what leaves the faulty network, in order,
  // to out: nothing (dropped, or held back to be swapped), one frame, or more (a
  // duplicate, or this frame followed by the one held back for reordering).
  void apply(Frame frame, std::vector<ImpairedFrame>& out);

  // A frame held back for a swap waits for the next frame; this releases it early (for a
  // simulation that has nothing more to send).
  std::optional<Frame> release_held();

 private:
  ImpairmentAction decide(const Frame& frame, uint64_t index);
  double uniform();  // [0, 1), 53 bits, the same on every standard library
  void corrupt(Frame& frame);

  uint64_t seed_;
  ImpairmentProbabilities probabilities_;
  uint64_t delay_ns_;
  std::mt19937_64 random_;
  Override override_;
  std::optional<Frame> held_;
  ImpairmentCounters counters_;
  ImpairmentAction last_action_ = ImpairmentAction::kPass;
};

}  // namespace mr::io
