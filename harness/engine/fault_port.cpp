#include "harness/engine/fault_port.h"

#include <algorithm>

#include "reference/io/internet_checksum.h"
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
  if (name == "drop") return FaultAction::kDrop;
  if (name == "duplicate") return FaultAction::kDuplicate;
  if (name == "delay") return FaultAction::kDelay;
  if (name == "reorder") return FaultAction::kReorder;
  if (name == "corrupt") return FaultAction::kCorrupt;
  if (name == "ecn") return FaultAction::kEcn;
  return Unexpected("unknown event '" + name + "' (drop, duplicate, delay, reorder, corrupt, ecn)");
}

bool mark_ecn_ce(std::vector<uint8_t>& frame) {
  size_t l3 = 14;
  if (frame.size() < l3) return false;
  uint16_t ethertype = static_cast<uint16_t>(frame[12] << 8 | frame[13]);
  if (ethertype == 0x8100 && frame.size() >= 18) {
    ethertype = static_cast<uint16_t>(frame[16] << 8 | frame[17]);
    l3 = 18;
  }
  if (ethertype == 0x0800 && frame.size() >= l3 + 20) {
    const size_t ihl = static_cast<size_t>(frame[l3] & 0x0f) * 4;
    if (ihl < 20 || frame.size() < l3 + ihl) return false;
    frame[l3 + 1] |= 0x03;
    frame[l3 + 10] = 0;
    frame[l3 + 11] = 0;
    const uint16_t sum = io::internet_checksum(std::span(frame).subspan(l3, ihl));
    frame[l3 + 10] = static_cast<uint8_t>(sum >> 8);
    frame[l3 + 11] = static_cast<uint8_t>(sum);
    return true;
  }
  if (ethertype == 0x86dd && frame.size() >= l3 + 40) {
    frame[l3 + 1] |= 0x30;  // the ECN bits are the low two of the traffic class
    return true;
  }
  return false;
}

std::optional<FaultEvent> FaultPort::match(FaultDirection direction,
                                           std::span<const uint8_t> frame) {
  auto d = wire::decode_frame(frame);
  const auto* roce = d ? std::get_if<wire::DecodedRoce>(&*d) : nullptr;
  if (roce == nullptr) return std::nullopt;
  const uint32_t dqpn = roce->packet.bth.dqpn;
  const uint32_t psn = roce->packet.bth.psn;
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
      held_tester_, [&](const Held& h) { return !h.behind_next && h.release_ns <= now; },
      [&](Held& h) { send(h.bytes); });
}

Expected<nlohmann::json, agent::ControlError> FaultPort::control(nlohmann::json request) {
  release_due_tester_frames();
  return inner_.control(std::move(request));
}

uint64_t FaultPort::inject(std::span<const uint8_t> frame) {
  release_due_tester_frames();
  const uint64_t t = inner_.now_ns();
  std::vector<uint8_t> bytes(frame.begin(), frame.end());
  const auto event = match(FaultDirection::kTester, frame);
  if (!event) {
    const uint64_t sent = inner_.inject(frame);
    // A frame held back by `reorder` follows the next one of its direction.
    release_held(
        held_tester_, [](const Held& h) { return h.behind_next; }, [&](Held& h) { send(h.bytes); });
    return sent;
  }
  if (on_fault_) on_fault_(*event, bytes, t);
  switch (event->action) {
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
      held_tester_.push_back({std::move(bytes), 0, true});
      return t;
    case FaultAction::kCorrupt:
      flip_bit(bytes, *event);
      return inner_.inject(bytes);
    case FaultAction::kEcn:
      mark_ecn_ce(bytes);
      return inner_.inject(bytes);
  }
  return t;
}

std::optional<DutFrame> FaultPort::receive(uint64_t deadline_ns) {
  for (int round = 0; round < kMaxReceiveRounds; ++round) {
    release_due_tester_frames();
    const uint64_t now = inner_.now_ns();
    release_held(
        held_dut_, [&](const Held& h) { return !h.behind_next && h.release_ns <= now; },
        [&](Held& h) {
          ready_dut_.push_back({std::move(h.bytes), h.release_ns});
        });
    if (!ready_dut_.empty()) {
      DutFrame f = std::move(ready_dut_.front());
      ready_dut_.pop_front();
      return f;
    }
    if (now >= deadline_ns && round > 0) return std::nullopt;
    // Wake up for the earliest held frame (ours or the tester's) or the deadline.
    uint64_t wake = deadline_ns;
    for (const auto& h : held_dut_)
      if (!h.behind_next) wake = std::min(wake, h.release_ns);
    for (const auto& h : held_tester_)
      if (!h.behind_next) wake = std::min(wake, h.release_ns);
    auto f = inner_.receive(wake);
    if (!f) continue;
    const auto event = match(FaultDirection::kDut, f->bytes);
    if (!event) {
      ready_dut_.push_back(std::move(*f));
      const uint64_t t = ready_dut_.back().t_ns;
      release_held(
          held_dut_, [](const Held& h) { return h.behind_next; },
          [&](Held& h) {
            ready_dut_.push_back({std::move(h.bytes), t});
          });
      continue;
    }
    if (on_fault_) on_fault_(*event, f->bytes, f->t_ns);
    switch (event->action) {
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
        held_dut_.push_back({std::move(f->bytes), 0, true});
        break;
      case FaultAction::kCorrupt:
        flip_bit(f->bytes, *event);
        ready_dut_.push_back(std::move(*f));
        break;
      case FaultAction::kEcn:
        mark_ecn_ce(f->bytes);
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
    for (const auto& h : held_tester_)
      if (!h.behind_next) next = std::min(next, h.release_ns);
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
  return inner_.reset();
}

}  // namespace mr::engine
