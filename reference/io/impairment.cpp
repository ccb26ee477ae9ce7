#include "reference/io/impairment.h"

#include "reference/io/ecn_mark.h"

namespace mr::io {
namespace {

constexpr size_t kEthernetHeaderSize = 14;

constexpr std::array<std::string_view, kImpairmentActionCount> kActionNames = {
    "pass", "drop", "duplicate", "reorder", "delay", "corrupt", "ecn"};

}  // namespace

std::string_view impairment_action_name(ImpairmentAction action) {
  return kActionNames[static_cast<size_t>(action)];
}

ImpairmentPolicy::ImpairmentPolicy(uint64_t seed, ImpairmentProbabilities probabilities,
                                   uint64_t delay_ns)
    : seed_(seed), probabilities_(probabilities), delay_ns_(delay_ns), random_(seed) {}

double ImpairmentPolicy::uniform() { return static_cast<double>(random_() >> 11) * 0x1.0p-53; }

ImpairmentAction ImpairmentPolicy::decide(const Frame& frame, uint64_t index) {
  // The draw happens even when an override decides, so that adding an override for one
  // frame does not shift the random fate of every later frame.
  const double u = uniform();
  if (override_) {
    if (auto chosen = override_(frame, index)) return *chosen;
  }
  const ImpairmentProbabilities& p = probabilities_;
  double edge = p.drop;
  if (u < edge) return ImpairmentAction::kDrop;
  if (u < (edge += p.duplicate)) return ImpairmentAction::kDuplicate;
  if (u < (edge += p.reorder)) return ImpairmentAction::kReorder;
  if (u < (edge += p.delay)) return ImpairmentAction::kDelay;
  if (u < (edge += p.corrupt)) return ImpairmentAction::kCorrupt;
  if (u < (edge += p.ecn)) return ImpairmentAction::kEcn;
  return ImpairmentAction::kPass;
}

void ImpairmentPolicy::corrupt(Frame& frame) {
  // Both draws happen even for a runt frame, to keep the random sequence independent of
  // frame sizes.
  const uint64_t where = random_();
  const auto flip = static_cast<uint8_t>(1 + random_() % 255);  // never 0: always a change
  if (frame.bytes.size() <= kEthernetHeaderSize) return;
  const size_t span = frame.bytes.size() - kEthernetHeaderSize;
  frame.bytes[kEthernetHeaderSize + where % span] ^= flip;
}

void ImpairmentPolicy::apply(Frame frame, std::vector<ImpairedFrame>& out) {
  const uint64_t index = counters_.frames++;
  ImpairmentAction action = decide(frame, index);
  if (action == ImpairmentAction::kReorder && held_) {
    // Already holding one: this frame overtakes it, which is the swap itself.
    action = ImpairmentAction::kPass;
  }
  ++counters_.actions[static_cast<size_t>(action)];
  last_action_ = action;
  switch (action) {
    case ImpairmentAction::kDrop:
      break;
    case ImpairmentAction::kReorder:
      held_ = std::move(frame);
      return;  // released behind the next frame
    case ImpairmentAction::kDuplicate:
      out.push_back({frame, 0});
      out.push_back({std::move(frame), 0});
      break;
    case ImpairmentAction::kDelay:
      out.push_back({std::move(frame), delay_ns_});
      break;
    case ImpairmentAction::kCorrupt:
      corrupt(frame);
      out.push_back({std::move(frame), 0});
      break;
    case ImpairmentAction::kEcn:
      (void)mark_ecn_ce(frame.bytes);  // a frame without IP passes unmarked
      out.push_back({std::move(frame), 0});
      break;
    case ImpairmentAction::kPass:
      out.push_back({std::move(frame), 0});
      break;
  }
  if (held_) {
    out.push_back({std::move(*held_), 0});
    held_.reset();
  }
}

std::optional<Frame> ImpairmentPolicy::release_held() {
  std::optional<Frame> frame = std::move(held_);
  held_.reset();
  return frame;
}

}  // namespace mr::io
