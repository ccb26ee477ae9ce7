// File: impaired_link.h
//
// A faulty network in front of a live Link: an ImpairmentPolicy on the frames sent through
// it and another on the frames received from it, so a reference device on a libpcap link
// sees (and causes) seeded loss, reordering, duplication, delay and corruption in both
// directions, the harness "in the middle" of an interop run (issue #7).
//
// On a live link a frame held back to be swapped with the next one may wait for a next
// frame that never comes (the last ACK of an exchange); after max_hold_ns it goes out on
// its own, as a late frame. Delayed frames and held frames are released by whichever call
// comes first: a send, or a receive (the data path calls receive in a loop, so nothing
// waits much longer than its due time). Every action other than pass is logged with the
// direction and the frame's index in that direction, so a failing run can be replayed
// from the two seeds.
//
// Thread-safe: send_burst and receive_burst may run on different threads, as in the
// ReferenceBackend (control ops send, the data path receives).
//
//   ImpairedLink middle(pcap, clock, ImpairmentPolicy(seed, {.drop = 0.02}),
//                       ImpairmentPolicy(seed + 1, {.drop = 0.02}));
//   ReferenceBackend backend(middle, clock, options);
#pragma once

#include <cstdint>
#include <deque>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "reference/io/clock.h"
#include "reference/io/impairment.h"
#include "reference/io/link.h"

namespace mr::io {

enum class LinkDirection : uint8_t { kSend, kReceive };
std::string_view link_direction_name(LinkDirection d);  // "send", "receive"

// One impairment the link applied (pass is never logged).
struct ImpairmentEvent {
  LinkDirection direction = LinkDirection::kSend;
  uint64_t index = 0;  // the frame's 0-based index in its direction
  ImpairmentAction action = ImpairmentAction::kPass;
  uint64_t time_ns = 0;  // on the link's clock
};

struct ImpairedLinkOptions {
  uint64_t max_hold_ns = 2'000'000;  // a frame held for a swap goes out alone after this
  size_t max_events = 10'000;        // the log is bounded; counters keep counting
};

class ImpairedLink final : public Link {
 public:
  // `inner` and `clock` must outlive the ImpairedLink.
  ImpairedLink(Link& inner, const Clock& clock, ImpairmentPolicy send_policy,
               ImpairmentPolicy receive_policy, ImpairedLinkOptions options = {});

  // Every frame counts as accepted (a network takes what it then drops).
  size_t send_burst(std::span<const Frame> frames) override;
  size_t receive_burst(std::span<Frame> out, uint64_t timeout_ns) override;
  std::string name() const override { return "impaired:" + inner_.name(); }

  ImpairmentCounters counters(LinkDirection d) const;
  std::vector<ImpairmentEvent> events() const;
  uint64_t events_omitted() const;

 private:
  struct Due {
    uint64_t due_ns = 0;
    Frame frame;
  };
  // One direction: its policy, when its held frame was held, its delayed frames.
  struct Side {
    explicit Side(ImpairmentPolicy p) : policy(std::move(p)) {}
    ImpairmentPolicy policy;
    bool holding = false;
    uint64_t held_since_ns = 0;
    std::vector<Due> delayed;
  };

  // Runs one frame through a side's policy; what leaves now is appended to `now_out`.
  void impair(Side& side, LinkDirection d, Frame frame, uint64_t now, std::vector<Frame>& now_out);
  // Moves the side's held frame (past max_hold_ns) and due delayed frames to `out`.
  void release_due(Side& side, uint64_t now, std::vector<Frame>& out) const;
  // The earliest moment a side has something to release, or UINT64_MAX.
  uint64_t next_due_ns(const Side& side) const;
  void log(LinkDirection d, uint64_t index, ImpairmentAction action, uint64_t now);
  void flush_send_due();

  Link& inner_;
  const Clock& clock_;
  ImpairedLinkOptions options_;

  mutable std::mutex send_mutex_;  // send_, inner_.send_burst
  Side send_;
  mutable std::mutex receive_mutex_;  // receive_, ready_, scratch_
  Side receive_;
  std::deque<Frame> ready_;  // received frames the policy let through, in order
  std::vector<Frame> scratch_;

  mutable std::mutex log_mutex_;
  std::vector<ImpairmentEvent> events_;
  uint64_t events_omitted_ = 0;
};

}  // namespace mr::io
