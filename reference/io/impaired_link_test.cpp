// ImpairedLink: the seeded policies applied on send and on receive of a live link, held
// and delayed frames released on time even when no further frame comes, and the log.
#include "reference/io/impaired_link.h"

#include <gtest/gtest.h>

#include <deque>

namespace mr::io {
namespace {

// Records what is sent; hands out what a test queued for receiving.
class FakeLink final : public Link {
 public:
  size_t send_burst(std::span<const Frame> frames) override {
    for (const auto& f : frames) sent.push_back(f.bytes[0]);
    return frames.size();
  }
  size_t receive_burst(std::span<Frame> out, uint64_t /*timeout_ns*/) override {
    size_t n = 0;
    while (n < out.size() && !incoming.empty()) {
      out[n++] = numbered(incoming.front());
      incoming.pop_front();
    }
    return n;
  }
  std::string name() const override { return "fake"; }

  static Frame numbered(uint8_t n) {
    Frame f;
    f.bytes.assign(64, 0);
    f.bytes[0] = n;
    return f;
  }

  std::vector<uint8_t> sent;
  std::deque<uint8_t> incoming;
};

ImpairmentPolicy one_action_at(uint64_t index, ImpairmentAction action) {
  ImpairmentPolicy p(1);
  p.set_override([=](const Frame&, uint64_t i) -> std::optional<ImpairmentAction> {
    if (i == index) return action;
    return std::nullopt;
  });
  return p;
}

std::vector<uint8_t> receive_all(ImpairedLink& link) {
  std::vector<Frame> out(16);
  std::vector<uint8_t> got;
  const size_t n = link.receive_burst(out, 0);
  for (size_t i = 0; i < n; ++i) got.push_back(out[i].bytes[0]);
  return got;
}

TEST(ImpairedLink, DropsTheChosenSentFrameAndLogsIt) {
  FakeLink fake;
  VirtualClock clock(1000);
  ImpairedLink link(fake, clock, one_action_at(1, ImpairmentAction::kDrop), ImpairmentPolicy(2));
  const std::vector<Frame> frames = {FakeLink::numbered(0), FakeLink::numbered(1),
                                     FakeLink::numbered(2)};
  EXPECT_EQ(link.send_burst(frames), 3U);  // a network takes what it drops
  EXPECT_EQ(fake.sent, (std::vector<uint8_t>{0, 2}));
  const auto events = link.events();
  ASSERT_EQ(events.size(), 1U);
  EXPECT_EQ(events[0].direction, LinkDirection::kSend);
  EXPECT_EQ(events[0].index, 1U);
  EXPECT_EQ(events[0].action, ImpairmentAction::kDrop);
  EXPECT_EQ(events[0].time_ns, 1000U);
  EXPECT_EQ(link.counters(LinkDirection::kSend).count(ImpairmentAction::kDrop), 1U);
  EXPECT_EQ(link.counters(LinkDirection::kReceive).frames, 0U);
}

TEST(ImpairedLink, ReordersReceivedFramesWithTheNextOne) {
  FakeLink fake;
  VirtualClock clock;
  ImpairedLink link(fake, clock, ImpairmentPolicy(1), one_action_at(0, ImpairmentAction::kReorder));
  fake.incoming = {0, 1, 2};
  EXPECT_EQ(receive_all(link), (std::vector<uint8_t>{1, 0, 2}));
  EXPECT_EQ(link.counters(LinkDirection::kReceive).count(ImpairmentAction::kReorder), 1U);
}

TEST(ImpairedLink, HeldReceivedFrameGoesOutAloneAfterMaxHold) {
  FakeLink fake;
  VirtualClock clock;
  ImpairedLink link(fake, clock, ImpairmentPolicy(1), one_action_at(0, ImpairmentAction::kReorder),
                    {.max_hold_ns = 500});
  fake.incoming = {7};
  EXPECT_TRUE(receive_all(link).empty());  // held for a swap
  clock.advance(499);
  EXPECT_TRUE(receive_all(link).empty());
  clock.advance(1);
  EXPECT_EQ(receive_all(link), (std::vector<uint8_t>{7}));  // nothing came: late, alone
}

TEST(ImpairedLink, HeldSentFrameIsFlushedByTheReceivePath) {
  FakeLink fake;
  VirtualClock clock;
  ImpairedLink link(fake, clock, one_action_at(0, ImpairmentAction::kReorder), ImpairmentPolicy(1),
                    {.max_hold_ns = 100});
  const std::vector<Frame> frames = {FakeLink::numbered(9)};
  link.send_burst(frames);
  EXPECT_TRUE(fake.sent.empty());
  clock.advance(100);
  receive_all(link);  // the data path's receive loop releases it
  EXPECT_EQ(fake.sent, (std::vector<uint8_t>{9}));
}

TEST(ImpairedLink, DelayedSentFrameLeavesWhenDue) {
  FakeLink fake;
  VirtualClock clock;
  ImpairmentPolicy delay(1, {.delay = 1.0}, 1000);
  ImpairedLink link(fake, clock, std::move(delay), ImpairmentPolicy(1));
  const std::vector<Frame> first = {FakeLink::numbered(1)};
  link.send_burst(first);
  EXPECT_TRUE(fake.sent.empty());
  clock.advance(1000);
  receive_all(link);
  EXPECT_EQ(fake.sent, (std::vector<uint8_t>{1}));
}

TEST(ImpairedLink, SameSeedsGiveTheSameFaults) {
  auto run = [] {
    FakeLink fake;
    VirtualClock clock;
    ImpairedLink link(fake, clock, ImpairmentPolicy(42, {.drop = 0.2, .reorder = 0.2}),
                      ImpairmentPolicy(43, {.drop = 0.2}));
    for (uint8_t i = 0; i < 50; ++i) {
      const std::vector<Frame> f = {FakeLink::numbered(i)};
      link.send_burst(f);
      fake.incoming.push_back(i);
      receive_all(link);
    }
    std::vector<std::pair<uint64_t, ImpairmentAction>> log;
    for (const auto& e : link.events()) log.emplace_back(e.index, e.action);
    return std::pair{fake.sent, log};
  };
  const auto a = run();
  EXPECT_EQ(a, run());
  EXPECT_FALSE(a.second.empty());
}

}  // namespace
}  // namespace mr::io
