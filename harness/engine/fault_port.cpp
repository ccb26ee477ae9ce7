#include "harness/engine/fault_port.h"

#include <algorithm>
#include <cstdio>

#include "reference/io/ecn_mark.h"
#include "reference/wire/frame_decoder.h"

namespace mr::engine {

namespace {

constexpr int kMaxReceiveRounds = 100'000;  // bounds the receive loop whatever the DUT sends

// `corrupt`: one bit flipped at the event's byte offset, by default in the last byte before
// the ICRC (frames carry no FCS here), which the ICRC covers: only the ICRC check can tell.
void flip_bit(std::vector<uint8_t>& bytes, const FaultEvent& e) {
  const size_t at = e.byte_offset.value_or(bytes.size() >= 5 ? bytes.size() - 5 : 0);
  if (at < bytes.size()) bytes[at] ^= 0x01;
}

// Takes the held frames that `due` selects out of `held`, in order, and hands each to `out`.
template <typename Held, typename Due, typename Out>
void release_held(std::deque<Held>& held, Due due, Out out) {
  for (auto it = held.begin(); it != held.end();) {
    if (due(*it)) {
      out(*it);
      it = held.erase(it);
    } else {
      ++it;
    }
  }
}

}  // namespace

Expected<FaultAction, std::string> fault_action_from_name(const std::string& name) {
  for (size_t i = 1; i < io::kImpairmentActionCount; ++i) {
    const auto action = static_cast<FaultAction>(i);
    if (io::impairment_action_name(action) == name) return action;
  }
  return Unexpected("unknown event '" + name + "' (drop, duplicate, reorder, delay, corrupt, ecn)");
}

bool PathSelector::selects(std::optional<uint8_t> frame_plane,
                           std::optional<uint16_t> frame_ev) const {
  if (plane && plane != frame_plane) return false;
  return !ev || ev == frame_ev;
}

std::string PathSelector::to_string() const {
  std::string s;
  if (plane) s = "plane " + std::to_string(*plane);
  if (ev) {
    char text[16];
    std::snprintf(text, sizeof text, "EV 0x%04x", *ev);
    s += (s.empty() ? "" : " ") + std::string(text);
  }
  return s;
}

std::optional<FaultPort::FrameKeys> FaultPort::keys_of(std::span<const uint8_t> frame) {
  auto d = wire::decode_frame(frame);
  const auto* roce = d ? std::get_if<wire::DecodedRoce>(&*d) : nullptr;
  if (roce == nullptr) return std::nullopt;
  FrameKeys k{.dqpn = roce->packet.bth.dqpn, .psn = roce->packet.bth.psn};
  if (const auto& mxh = roce->packet.mxh) {
    k.plane = mxh->plane.value();
    k.ev = mxh->ev.value();
  }
  return k;
}

std::optional<FaultEvent> FaultPort::match(FaultDirection direction,
                                           const std::optional<FrameKeys>& keys) {
  if (!keys) return std::nullopt;
  const uint32_t dqpn = keys->dqpn;
  const uint32_t psn = keys->psn;
  const uint32_t tx = ++transmissions_[{direction, dqpn, psn}];
  auto it = std::find_if(armed_.begin(), armed_.end(), [&](const FaultEvent& e) {
    return e.direction == direction && e.dqpn == dqpn && e.psn == psn && e.tx == tx;
  });
  if (it == armed_.end()) return std::nullopt;
  FaultEvent e = *it;
  armed_.erase(it);
  return e;
}

void FaultPort::send(std::span<const uint8_t> frame) { (void)inner_.inject(frame); }

void FaultPort::release_due_tester_frames() {
  const uint64_t now = inner_.now_ns();
  release_held(
      held_tester_, [&](const Held& h) { return h.release_ns <= now; },
      [&](Held& h) { send(h.bytes); });
}

void FaultPort::impair(FaultDirection direction, const Impairment& impairment) {
  std::vector<Policy>& list = policies(direction);
  std::erase_if(list, [&](const Policy& p) { return p.impairment.on == impairment.on; });
  Policy p{io::ImpairmentPolicy(impairment.seed, impairment.rates, impairment.delay_ns),
           impairment};
  if (impairment.on.every_frame()) {
    list.push_back(std::move(p));
  } else {
    list.insert(list.begin(), std::move(p));
  }
}

void FaultPort::end_impairment(FaultDirection direction, const std::optional<PathSelector>& on) {
  std::erase_if(policies(direction),
                [&](const Policy& p) { return !on || p.impairment.on == *on; });
}

void FaultPort::impair_frame(FaultDirection direction, const std::optional<FrameKeys>& keys,
                             std::vector<uint8_t> bytes, uint64_t t_ns,
                             std::vector<std::vector<uint8_t>>& now_out, std::deque<Held>& held) {
  std::vector<Policy>& list = policies(direction);
  auto slot = std::find_if(list.begin(), list.end(), [&](const Policy& p) {
    const PathSelector& on = p.impairment.on;
    return on.every_frame() || (keys && on.selects(keys->plane, keys->ev));
  });
  if (slot == list.end()) {
    now_out.push_back(std::move(bytes));
    return;
  }
  std::vector<io::ImpairedFrame> out;
  const std::vector<uint8_t> before = bytes;
  slot->policy.apply(io::Frame{std::move(bytes), t_ns}, out);
  const FaultAction action = slot->policy.last_action();
  if (action != FaultAction::kPass && on_fault_) {
    FaultEvent e;
    e.action = action;
    e.direction = direction;
    e.line = slot->impairment.line;
    e.random = true;
    on_fault_(e, before, t_ns);
  }
  if (action == FaultAction::kReorder) {
    // The policy holds it for the next frame; here it also has a deadline, so that the last
    // frame of an exchange is late, not lost.
    if (auto f = slot->policy.release_held())
      held.push_back({std::move(f->bytes), t_ns + kMaxHoldNs, true});
  }
  for (auto& f : out) {
    if (f.extra_delay_ns == 0) {
      now_out.push_back(std::move(f.frame.bytes));
    } else {
      held.push_back({std::move(f.frame.bytes), t_ns + f.extra_delay_ns, false});
    }
  }
}

ControlReply FaultPort::control(nlohmann::json request) {
  release_due_tester_frames();
  return inner_.control(std::move(request));
}

std::unique_ptr<PendingControl> FaultPort::send_control(nlohmann::json request) {
  release_due_tester_frames();
  return inner_.send_control(std::move(request));
}

uint64_t FaultPort::inject(std::span<const uint8_t> frame) {
  release_due_tester_frames();
  const uint64_t t = inner_.now_ns();
  std::vector<uint8_t> bytes(frame.begin(), frame.end());
  const auto keys = keys_of(frame);
  const auto event = match(FaultDirection::kTester, keys);
  if (!event) {
    std::vector<std::vector<uint8_t>> now_out;
    impair_frame(FaultDirection::kTester, keys, std::move(bytes), t, now_out, held_tester_);
    uint64_t sent = t;
    for (size_t i = 0; i < now_out.size(); ++i) {
      const uint64_t at = inner_.inject(now_out[i]);
      if (i == 0) sent = at;
      // A frame held back by `reorder` follows the next one of its direction.
      release_held(
          held_tester_, [](const Held& h) { return h.behind_next; },
          [&](Held& h) { send(h.bytes); });
    }
    return sent;
  }
  if (on_fault_) on_fault_(*event, bytes, t);
  switch (event->action) {
    case FaultAction::kPass:
    case FaultAction::kDrop:
      return t;
    case FaultAction::kDuplicate: {
      const uint64_t sent = inner_.inject(frame);
      send(frame);
      return sent;
    }
    case FaultAction::kDelay:
      held_tester_.push_back({std::move(bytes), t + event->delay_ns, false});
      return t;
    case FaultAction::kReorder:
      held_tester_.push_back({std::move(bytes), kNever, true});
      return t;
    case FaultAction::kCorrupt:
      flip_bit(bytes, *event);
      return inner_.inject(bytes);
    case FaultAction::kEcn:
      io::mark_ecn_ce(bytes);
      return inner_.inject(bytes);
  }
  return t;
}

std::optional<DutFrame> FaultPort::receive(uint64_t deadline_ns) {
  for (int round = 0; round < kMaxReceiveRounds; ++round) {
    release_due_tester_frames();
    const uint64_t now = inner_.now_ns();
    release_held(
        held_dut_, [&](const Held& h) { return h.release_ns <= now; },
        [&](Held& h) {
          ready_dut_.push_back({std::move(h.bytes), std::min(h.release_ns, now)});
        });
    if (!ready_dut_.empty()) {
      DutFrame f = std::move(ready_dut_.front());
      ready_dut_.pop_front();
      return f;
    }
    if (now >= deadline_ns && round > 0) return std::nullopt;
    // Wake up for the earliest held frame (ours or the tester's) or the deadline.
    uint64_t wake = deadline_ns;
    for (const auto& h : held_dut_) wake = std::min(wake, h.release_ns);
    for (const auto& h : held_tester_) wake = std::min(wake, h.release_ns);
    auto f = inner_.receive(wake);
    if (!f) continue;
    const auto keys = keys_of(f->bytes);
    const auto event = match(FaultDirection::kDut, keys);
    if (!event) {
      std::vector<std::vector<uint8_t>> now_out;
      const uint64_t t = f->t_ns;
      impair_frame(FaultDirection::kDut, keys, std::move(f->bytes), t, now_out, held_dut_);
      for (auto& bytes : now_out) {
        ready_dut_.push_back({std::move(bytes), t});
        release_held(
            held_dut_, [](const Held& h) { return h.behind_next; },
            [&](Held& h) {
              ready_dut_.push_back({std::move(h.bytes), t});
            });
      }
      continue;
    }
    if (on_fault_) on_fault_(*event, f->bytes, f->t_ns);
    switch (event->action) {
      case FaultAction::kPass:
      case FaultAction::kDrop:
        break;
      case FaultAction::kDuplicate:
        ready_dut_.push_back(*f);
        ready_dut_.push_back(std::move(*f));
        break;
      case FaultAction::kDelay:
        held_dut_.push_back({std::move(f->bytes), f->t_ns + event->delay_ns, false});
        break;
      case FaultAction::kReorder:
        held_dut_.push_back({std::move(f->bytes), kNever, true});
        break;
      case FaultAction::kCorrupt:
        flip_bit(f->bytes, *event);
        ready_dut_.push_back(std::move(*f));
        break;
      case FaultAction::kEcn:
        io::mark_ecn_ce(f->bytes);
        ready_dut_.push_back(std::move(*f));
        break;
    }
  }
  return std::nullopt;
}

void FaultPort::wait_until(uint64_t t_ns) {
  // Delayed tester frames go out on time while we wait.
  for (int i = 0; i < kMaxReceiveRounds; ++i) {
    uint64_t next = t_ns;
    for (const auto& h : held_tester_) next = std::min(next, h.release_ns);
    inner_.wait_until(next);
    release_due_tester_frames();
    if (next >= t_ns) return;
  }
}

Expected<void, std::string> FaultPort::reset() {
  armed_.clear();
  transmissions_.clear();
  held_tester_.clear();
  ready_dut_.clear();
  held_dut_.clear();
  tester_policies_.clear();
  dut_policies_.clear();
  return inner_.reset();
}

}  // namespace mr::engine
