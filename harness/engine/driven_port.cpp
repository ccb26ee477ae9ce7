#include "harness/engine/driven_port.h"

#include <algorithm>

#include "harness/engine/waiting_op.h"
#include "reference/wire/frame_decoder.h"

namespace mr::engine {
namespace {

// Bounds every loop here whatever the DUT sends: a 1 MiB transfer under loss is a few
// thousand frames, each at most a few steps.
constexpr int kMaxSteps = 4'000'000;
// A waiting control request is polled again after this much of the exchange has run.
constexpr uint64_t kPollSliceNs = 2'000'000;
// While a control reply is on its way, the tester looks for it this often between frames.
constexpr uint64_t kReplyPollNs = 100'000;

}  // namespace

peer::ReferencePeer& DrivenPort::peer(const peer::PeerIdentity& identity) {
  if (!peer_) peer_ = std::make_unique<peer::ReferencePeer>(identity);
  return *peer_;
}

bool DrivenPort::claims(const std::vector<uint8_t>& frame) const {
  auto d = wire::decode_frame(frame);
  const auto* roce = d ? std::get_if<wire::DecodedRoce>(&*d) : nullptr;
  return roce != nullptr && peer_->owns(roce->packet.bth.dqpn.value());
}

DrivenPort::Step DrivenPort::step(uint64_t deadline_ns) {
  const uint64_t now = inner_.now_ns();
  peer_->advance(now);
  std::vector<std::vector<uint8_t>> frames = peer_->take_outbox();
  for (const auto& f : frames) {
    const uint64_t sent = inner_.inject(f);
    if (record_) record_(f, sent, true);
  }
  peer_->recycle(frames);  // the tester's next frames are built in these buffers
  uint64_t wake = deadline_ns;
  if (auto next = peer_->next_deadline()) wake = std::min(wake, std::max(*next, now + 1));
  Step s;
  s.frame = inner_.receive(wake);
  if (s.frame) {
    s.claimed = claims(s.frame->bytes);
    if (s.claimed) peer_->receive(s.frame->bytes, s.frame->t_ns);
  }
  return s;
}

std::optional<DutFrame> DrivenPort::next_frame(uint64_t deadline_ns, bool claimed_too) {
  if (!unclaimed_.empty()) {
    DutFrame f = std::move(unclaimed_.front());
    unclaimed_.pop_front();
    return f;
  }
  if (!active()) return inner_.receive(deadline_ns);
  for (int i = 0; i < kMaxSteps; ++i) {
    Step s = step(deadline_ns);
    if (s.frame && (claimed_too || !s.claimed)) return std::move(s.frame);
    if (s.frame && record_) record_(s.frame->bytes, s.frame->t_ns, false);
    if (!s.frame && inner_.now_ns() >= deadline_ns) return std::nullopt;
  }
  return std::nullopt;
}

bool DrivenPort::wait_step(uint64_t deadline_ns) {
  Step s = step(deadline_ns);
  if (!s.frame) return false;
  if (!s.claimed) {
    unclaimed_.push_back(std::move(*s.frame));
  } else if (record_) {
    record_(s.frame->bytes, s.frame->t_ns, false);
  }
  return true;
}

bool DrivenPort::run_until(uint64_t deadline_ns, const std::function<bool()>& done) {
  if (done()) return true;
  if (!active()) {
    inner_.wait_until(deadline_ns);
    return done();
  }
  for (int i = 0; i < kMaxSteps; ++i) {
    const bool got = wait_step(deadline_ns);
    if (done()) return true;
    if (!got && inner_.now_ns() >= deadline_ns) return false;
  }
  return done();
}

void DrivenPort::wait_until(uint64_t t_ns) {
  if (!active()) return inner_.wait_until(t_ns);
  run_until(t_ns, [] { return false; });
}

ControlReply DrivenPort::round_trip(nlohmann::json request) {
  auto pending = inner_.send_control(std::move(request));
  for (int i = 0; i < kMaxSteps; ++i) {
    if (auto reply = pending->try_take()) return std::move(*reply);
    wait_step(inner_.now_ns() + kReplyPollNs);
  }
  for (;;) {  // bounded by the control connection's own timeout
    if (auto reply = pending->try_take()) return std::move(*reply);
    inner_.wait_until(inner_.now_ns() + kReplyPollNs);
  }
}

ControlReply DrivenPort::control(nlohmann::json request) {
  if (!active()) return inner_.control(std::move(request));
  const std::string op = request.value("op", "");
  const uint64_t timeout_ms = request.value("timeout_ms", uint64_t{0});
  if (timeout_ms == 0 || !is_waiting_op(op)) return round_trip(std::move(request));
  // The DUT waits for the tester (its ACKs, its READ responses): poll without waiting, and
  // let the peer run during and between polls, until the reply shows what the request waits
  // for.
  const uint64_t deadline = inner_.now_ns() + timeout_ms * 1'000'000;
  request["timeout_ms"] = 0;
  for (int i = 0; i < kMaxSteps; ++i) {
    auto reply = round_trip(request);
    if (!reply || wait_satisfied(op, *reply).value_or(true) || inner_.now_ns() >= deadline)
      return reply;
    // Poll again after a slice of the exchange, not after every frame: a poll costs the DUT
    // a request to serve, and on the embedded reference each slice is virtual time.
    const uint64_t slice = std::min(deadline, inner_.now_ns() + kPollSliceNs);
    for (int j = 0; j < kMaxSteps; ++j) {
      if (!wait_step(slice) && inner_.now_ns() >= slice) break;
    }
  }
  return round_trip(request);
}

Expected<void, std::string> DrivenPort::reset() {
  peer_.reset();
  unclaimed_.clear();
  return inner_.reset();
}

}  // namespace mr::engine
