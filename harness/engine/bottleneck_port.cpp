#include "harness/engine/bottleneck_port.h"

#include <algorithm>

#include "reference/wire/frame_decoder.h"

namespace mr::engine {
namespace {

// Bounds the receive loop whatever the DUT sends.
constexpr int kMaxReceiveRounds = 100'000;

}  // namespace

Expected<void, std::string> BottleneckPort::serve(std::optional<uint8_t> plane,
                                                  BottleneckQueue::Config config) {
  if (plane && all_)
    return Unexpected(std::string("a bottleneck for every frame is on: a plane's cannot join it"));
  if (!plane && !planes_.empty())
    return Unexpected(std::string("per-plane bottlenecks are on: one for every frame cannot join"));
  // A queue's frames have their departure times: a new rate cannot apply to them.
  if (const BottleneckQueue* old = queue(plane); old != nullptr && !old->empty())
    return Unexpected(std::string("the bottleneck still holds frames: it cannot change now"));
  since_ns_ = inner().now_ns();
  if (plane) {
    planes_.insert_or_assign(*plane, BottleneckQueue(config));
  } else {
    all_.emplace(config);
  }
  return {};
}

const BottleneckQueue* BottleneckPort::queue(std::optional<uint8_t> plane) const {
  if (!plane) return all_ ? &*all_ : nullptr;
  auto it = planes_.find(*plane);
  return it == planes_.end() ? nullptr : &it->second;
}

std::optional<BottleneckPort::Keys> BottleneckPort::keys_of(std::span<const uint8_t> frame) {
  auto d = wire::decode_frame(frame);
  const auto* roce = d ? std::get_if<wire::DecodedRoce>(&*d) : nullptr;
  if (roce == nullptr) return std::nullopt;
  Keys k{.dqpn = roce->packet.bth.dqpn,
         .psn = roce->packet.bth.psn,
         .payload = static_cast<uint32_t>(roce->packet.payload.size())};
  if (const auto& mxh = roce->packet.mxh) k.plane = mxh->plane.value();
  return k;
}

void BottleneckPort::admit(DutFrame frame) {
  const auto keys = keys_of(frame.bytes);
  BottleneckQueue* q = all_ && frame.t_ns >= since_ns_ ? &*all_ : nullptr;
  if (q == nullptr && !all_ && keys && keys->plane && frame.t_ns >= since_ns_) {
    auto it = planes_.find(*keys->plane);
    if (it != planes_.end()) q = &it->second;
  }
  if (q == nullptr) {
    ready_.push_back(std::move(frame));
    return;
  }
  if (keys && keys->payload > 0) starts_.try_emplace(keys->dqpn, frame.t_ns);
  q->admit(std::move(frame.bytes), frame.t_ns);
}

BottleneckQueue* BottleneckPort::earliest(uint64_t& out_ns) {
  BottleneckQueue* best = nullptr;
  out_ns = ready_.empty() ? UINT64_MAX : ready_.front().t_ns;
  auto consider = [&](BottleneckQueue& q) {
    if (auto t = q.next_out_ns(); t && *t < out_ns) {
      out_ns = *t;
      best = &q;
    }
  };
  if (all_) consider(*all_);
  for (auto& [plane, q] : planes_) consider(q);
  return best;
}

void BottleneckPort::log_delivery(std::span<const uint8_t> frame, uint64_t t_ns) {
  const auto keys = keys_of(frame);
  if (!keys || keys->payload == 0) return;
  if (!delivered_.insert(uint64_t{keys->dqpn} << 24 | keys->psn).second) return;
  deliveries_.push_back({t_ns, keys->dqpn, keys->payload});
}

std::optional<DutFrame> BottleneckPort::receive(uint64_t deadline_ns) {
  if (!active() && ready_.empty()) return inner().receive(deadline_ns);
  for (int round = 0; round < kMaxReceiveRounds; ++round) {
    const uint64_t now = inner().now_ns();
    // Everything the DUT sent by now is in a queue before a head leaves: its mark counts
    // the frames that arrived behind it.
    for (int i = 0; i < kMaxReceiveRounds; ++i) {
      auto f = inner().receive(now);
      if (!f) break;
      admit(std::move(*f));
    }
    uint64_t out_ns = 0;
    BottleneckQueue* q = earliest(out_ns);
    if (out_ns <= now) {
      DutFrame f;
      if (q == nullptr) {
        f = std::move(ready_.front());
        ready_.pop_front();
      } else {
        BottleneckQueue::Leaving l = q->pop();
        f = {std::move(l.bytes), l.out_ns};
      }
      if (active()) log_delivery(f.bytes, f.t_ns);
      return f;
    }
    if (now >= deadline_ns && round > 0) return std::nullopt;
    auto f = inner().receive(std::min(deadline_ns, out_ns));
    if (f) admit(std::move(*f));
  }
  return std::nullopt;
}

Expected<void, std::string> BottleneckPort::reset() {
  all_.reset();
  planes_.clear();
  ready_.clear();
  deliveries_.clear();
  starts_.clear();
  delivered_.clear();
  since_ns_ = 0;
  return inner().reset();
}

}  // namespace mr::engine
