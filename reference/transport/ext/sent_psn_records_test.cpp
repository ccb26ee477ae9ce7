// File: sent_psn_records_test.cpp
#include "reference/transport/ext/sent_psn_records.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace mr::transport::ext {
namespace {

constexpr uint64_t kUs = 1'000;

// PSNs [first, first + n) sent at `at`.
void send(SentPsnRecords& s, uint32_t first, uint32_t n, uint64_t at) {
  for (uint32_t i = 0; i < n; ++i) s.on_sent(first + i, at, 0xC000, 0, false);
}

// An ACK with cumulative PSN c whose bitmap (base = reference, offset 0) reports `received`.
ExtAckReport ack(uint32_t c, const std::vector<uint32_t>& received, uint8_t mpr = 8,
                 bool ara = false) {
  ExtAckReport a;
  a.cumulative = c;
  a.sack_ref = (c + 1) & 0xfffff8;
  a.mpr = mpr;
  a.ara = ara;
  for (uint32_t p : received) a.bitmap |= uint64_t{1} << (p - a.sack_ref);
  return a;
}

std::vector<uint32_t> psns(const std::vector<Retransmission>& r) {
  std::vector<uint32_t> out;
  out.reserve(r.size());
  for (const auto& x : r) out.push_back(x.psn);
  return out;
}

TEST(SentPsnRecords, ANewPsnMustFitTheAdvertisedWindow) {
  SentPsnRecords s(100, {});
  EXPECT_TRUE(s.may_send_new(100 + 127));  // MPR 1 until an ACK says more: 128 PSNs
  EXPECT_FALSE(s.may_send_new(100 + 128));
  send(s, 100, 1, 0);
  s.on_ack(ack(100, {}, /*mpr=*/2), 10 * kUs, RtoEstimator({}));
  EXPECT_TRUE(s.may_send_new(101 + 255));
  EXPECT_FALSE(s.may_send_new(101 + 256));
}

TEST(SentPsnRecords, NextTimerIsTheEarliestTimeoutAndNoneOnceAllIsAcknowledged) {
  SentPsnRecords s(100, {});
  const RtoEstimator rto({});
  EXPECT_FALSE(s.next_timer_ns(rto));
  send(s, 100, 2, 3 * kUs);
  send(s, 102, 1, 7 * kUs);
  EXPECT_EQ(s.next_timer_ns(rto), 3 * kUs + rto.rto_ns());  // T_EXT_RTO_INIT from the oldest
  // on_timer asks for nothing before that time, and for the two oldest PSNs at it.
  EXPECT_TRUE(s.on_timer(3 * kUs + rto.rto_ns() - 1, rto).retransmit.empty());
  EXPECT_EQ(psns(s.on_timer(3 * kUs + rto.rto_ns(), rto).retransmit),
            (std::vector<uint32_t>{100, 101}));
  s.on_ack(ack(102, {}), 20 * kUs, rto);
  EXPECT_FALSE(s.next_timer_ns(rto));
}

TEST(SentPsnRecords, TakesACumulativeAckOnceAndNeverMovesBack) {
  SentPsnRecords s(100, {});
  send(s, 100, 10, 0);
  const RtoEstimator rto({});
  AckOutcome a = s.on_ack(ack(104, {}), 10 * kUs, rto);
  EXPECT_TRUE(a.cumulative_advanced);
  EXPECT_EQ(a.newly_acknowledged, 5u);
  EXPECT_EQ(s.cumulative(), 104u);
  a = s.on_ack(ack(104, {}), 11 * kUs, rto);  // repeated
  EXPECT_FALSE(a.cumulative_advanced);
  EXPECT_EQ(a.newly_acknowledged, 0u);
  a = s.on_ack(ack(102, {}), 12 * kUs, rto);  // stale, reordered
  EXPECT_EQ(s.cumulative(), 104u);
  a = s.on_ack(ack(200, {}), 13 * kUs, rto);  // PSNs never sent
  EXPECT_FALSE(a.cumulative_advanced);
  EXPECT_EQ(s.cumulative(), 104u);
}

TEST(SentPsnRecords, ABitmapMarksOnlyPsnsSentAfterTheCumulativePsn) {
  SentPsnRecords s(96, {});
  send(s, 96, 10, 0);  // 96 .. 105
  AckOutcome a = s.on_ack(ack(97, {99, 100, 110}), 10 * kUs, RtoEstimator({}));
  EXPECT_EQ(a.newly_acknowledged, 2u + 2u);  // 96, 97 cumulative; 99, 100 SACKed; 110 unsent
  EXPECT_FALSE(s.outstanding(99));
  EXPECT_TRUE(s.outstanding(98));
  EXPECT_EQ(s.outstanding_count(), 6u);
}

TEST(SentPsnRecords, IgnoresABitmapWhoseOffsetIsNotAMultipleOf8) {
  SentPsnRecords s(96, {});
  send(s, 96, 10, 0);
  ExtAckReport a = ack(95, {99});
  a.sack_offset = 4;
  const AckOutcome out = s.on_ack(a, 10 * kUs, RtoEstimator({}));
  EXPECT_TRUE(out.bitmap_ignored);
  EXPECT_TRUE(s.outstanding(99));
}

TEST(SentPsnRecords, RetransmitsAHoleOnceNOooThresholdLaterPsnsAreSacked) {
  SentPsnRecords s(96, {});
  send(s, 96, 20, 0);          // 96 .. 115; 97 lost
  const RtoEstimator rto({});  // no sample yet: wait T_EXT_RTO_MIN (50 us)
  AckOutcome a = s.on_ack(ack(96, {98, 99, 100, 101, 102, 103, 104}), 100 * kUs, rto);
  EXPECT_TRUE(a.retransmit.empty());  // 104 is only 7 after 97
  a = s.on_ack(ack(96, {105}), 101 * kUs, rto);
  ASSERT_EQ(psns(a.retransmit), (std::vector<uint32_t>{97}));
  EXPECT_EQ(a.retransmit[0].cause, RetransmitCause::kEarlyLoss);
  s.on_sent(97, 101 * kUs, 0xC001, 1, false);
  a = s.on_ack(ack(96, {106}), 102 * kUs, rto);  // the same hole: not again within SRTT
  EXPECT_TRUE(a.retransmit.empty());
  // SRTT later, still missing, but 107 left before 97 went again: the retransmission may
  // still be on its way (RACK), so not yet.
  a = s.on_ack(ack(96, {107}), 152 * kUs, rto);
  EXPECT_TRUE(a.retransmit.empty());
  s.on_sent(116, 153 * kUs, 0xC002, 1, false);  // sent after 97's retransmission
  a = s.on_ack(ack(96, {108, 109, 110, 111, 112, 113, 114, 115, 116}), 160 * kUs, rto);
  EXPECT_EQ(psns(a.retransmit), (std::vector<uint32_t>{97}));
}

// PSNs [first, first + n) sent at `at`, PSN first + i on EV 0xC000 + i % evs.
void spray(SentPsnRecords& s, uint32_t first, uint32_t n, uint64_t at, uint16_t evs) {
  for (uint32_t i = 0; i < n; ++i)
    s.on_sent(first + i, at, static_cast<uint16_t>(0xC000 + i % evs), 0, false);
}

RtoEstimator sampled(std::initializer_list<uint64_t> rtts_ns) {
  RtoEstimator rto({});
  for (uint64_t r : rtts_ns) rto.sample(r);
  return rto;
}

TEST(SentPsnRecords, AHoleOvertakenOnlyOnOtherEvsWaitsTheReorderWindow) {
  SentPsnRecords s(96, {});
  spray(s, 96, 20, 0, /*evs=*/2);                          // even PSNs on 0xC000, odd on 0xC001
  const RtoEstimator rto = sampled({20 * kUs, 40 * kUs});  // SRTT 22.5 us, RTTVAR 12.5 us
  const uint64_t window = rto.srtt_ns() + 4 * rto.rttvar_ns();
  // 97 (0xC001) missing; only even PSNs after it arrived: overtaken on another path.
  const auto evens = {98u, 100u, 102u, 104u, 106u, 108u, 110u};
  EXPECT_TRUE(s.on_ack(ack(96, evens), window - 1, rto).retransmit.empty());
  EXPECT_EQ(psns(s.on_ack(ack(96, {}), window, rto).retransmit),
            (std::vector<uint32_t>{97, 99, 101}));  // every odd hole N_OOO_THRESHOLD behind
}

TEST(SentPsnRecords, AHoleOvertakenOnItsOwnEvIsLostAfterSrtt) {
  SentPsnRecords s(96, {});
  spray(s, 96, 20, 0, /*evs=*/2);
  const RtoEstimator rto = sampled({20 * kUs, 40 * kUs});
  // 99, sent on 97's EV after it, arrived: 97 was lost, not overtaken.
  EXPECT_TRUE(
      s.on_ack(ack(96, {98, 99, 100, 102, 104, 106}), rto.srtt_ns() - 1, rto).retransmit.empty());
  EXPECT_EQ(psns(s.on_ack(ack(96, {}), rto.srtt_ns(), rto).retransmit),
            (std::vector<uint32_t>{97}));
}

TEST(SentPsnRecords, ARetransmissionAckedSoonerThanTheMinimumRttSaysNothingOfOrder) {
  SentPsnRecords s(96, {});
  const RtoEstimator rto = sampled({20 * kUs, 40 * kUs});  // minimum RTT 20 us
  s.on_sent(96, 0, 0xC000, 0, false);
  s.on_sent(97, 1 * kUs, 0xC000, 0, false);  // lost
  for (uint32_t p = 98; p < 108; ++p) s.on_sent(p, 2 * kUs, 0xC001, 1, false);
  s.on_sent(98, 30 * kUs, 0xC000, 0, false);  // 98 again, on 97's EV (its original is late)
  // 98 reported 5 us after its retransmission: the original's delivery, on the other EV.
  // Were it the retransmission's, 97 (34 us old, past SRTT) would count as lost on its EV
  // and go now; it waits the reorder window instead.
  ASSERT_LT(rto.srtt_ns(), 34 * kUs);
  EXPECT_TRUE(
      s.on_ack(ack(96, {98, 99, 100, 101, 102, 103, 104, 105}), 35 * kUs, rto).retransmit.empty());
  // The same report a minimum RTT after the retransmission proves it.
  EXPECT_EQ(
      psns(s.on_ack(ack(96, {98, 99, 100, 101, 102, 103, 104, 105}), 50 * kUs, rto).retransmit),
      (std::vector<uint32_t>{97}));
}

TEST(SentPsnRecords, ALaterPsnOnItsEvInAnotherReportDoesNotProveAHoleLost) {
  SentPsnRecords s(96, {});
  spray(s, 96, 40, 0, /*evs=*/8);  // 97, 105, 113 ... on 0xC001
  const RtoEstimator rto = sampled({20 * kUs, 40 * kUs});
  // The first report sees 97 missing, nothing after it on its EV yet: it may be in flight.
  EXPECT_TRUE(s.on_ack(ack(96, {98, 99, 100, 102, 103}), 1 * kUs, rto).retransmit.empty());
  // A second report covers only 104 .. 167: 105 (97's EV) arrived, but of 97 it says nothing;
  // 97 may have arrived in between. It waits the reorder window, not only SRTT.
  ExtAckReport later = ack(96, {});
  later.sack_ref = 104;
  for (uint32_t p = 104; p < 120; ++p) later.bitmap |= uint64_t{1} << (p - 104);
  EXPECT_TRUE(s.on_ack(later, rto.srtt_ns(), rto).retransmit.empty());
  const uint64_t window = rto.srtt_ns() + 4 * rto.rttvar_ns();
  EXPECT_EQ(psns(s.on_ack(later, window, rto).retransmit), (std::vector<uint32_t>{97, 101}));
}

// PSNs 98 .. 127 but `lost`: what a bitmap reports of the PSNs spray(s, 96, 32, 0, 8) sent
// (0xC001 carried 97, 105, 113 and 121), 96 acknowledged cumulatively.
std::vector<uint32_t> received_but(std::initializer_list<uint32_t> lost) {
  std::vector<uint32_t> v;
  for (uint32_t p = 98; p < 128; ++p)
    if (std::find(lost.begin(), lost.end(), p) == lost.end()) v.push_back(p);
  return v;
}

// The records after 96 .. 127 went out sprayed over 8 EVs and every packet of 0xC001 (97,
// 105, 113, 121) was lost: the report at `at` declares 97, 105 and 113 lost (121 has too few
// PSNs after it) and no EV silent yet, and those three go again on 0xC002 at once.
SentPsnRecords after_0xc001_lost(const RtoEstimator& rto, uint64_t at) {
  SentPsnRecords s(96, {});
  spray(s, 96, 32, 0, /*evs=*/8);
  const AckOutcome lost = s.on_ack(ack(96, received_but({97, 105, 113, 121})), at, rto);
  EXPECT_EQ(psns(lost.retransmit), (std::vector<uint32_t>{97, 105, 113}));
  EXPECT_TRUE(lost.silent_evs.empty());
  for (uint32_t p : {97u, 105u, 113u}) s.on_sent(p, at, 0xC002, 0, false);
  return s;
}

// MR-PF-18: the packets of EV 0xC001 (97, 105, 113, 121) are all lost, everything else
// arrives. SACK declares the first three lost (121 has too few PSNs after it) and they go again
// elsewhere; an RTO after the first of them was sent, with nothing delivered on 0xC001 since, the
// EV is reported silent, once.
TEST(SentPsnRecords, AnEvSilentForAnRtoAfterASackedLossIsReportedOnce) {
  const RtoEstimator rto = sampled({10 * kUs});  // RTO: T_EXT_RTO_MIN, past SRTT + 4 RTTVAR
  const uint64_t window = rto.srtt_ns() + 4 * rto.rttvar_ns();
  SentPsnRecords s = after_0xc001_lost(rto, window);
  const auto others = received_but({97, 105, 113, 121});
  s.on_sent(128, window, 0xC001, 0, false);  // new data still goes on 0xC001, and is lost
  ASSERT_GT(rto.rto_ns(), window);
  EXPECT_TRUE(s.on_ack(ack(96, others), rto.rto_ns() - 1, rto).silent_evs.empty());
  EXPECT_EQ(s.on_ack(ack(96, others), rto.rto_ns(), rto).silent_evs,
            (std::vector<uint16_t>{0xC001}));
  EXPECT_TRUE(s.on_ack(ack(96, others), rto.rto_ns() + 1, rto).silent_evs.empty()) << "once";
}

// Congestion drops some of an EV's packets and delivers the rest: a delivery on the EV after
// its loss ends the silence, and an RTO later it is not reported.
TEST(SentPsnRecords, AnEvThatDeliversAfterItsLossIsNotSilent) {
  const RtoEstimator rto = sampled({10 * kUs});
  const uint64_t window = rto.srtt_ns() + 4 * rto.rttvar_ns();
  SentPsnRecords s = after_0xc001_lost(rto, window);
  s.on_sent(128, window, 0xC001, 0, false);  // new data on 0xC001, and this time it arrives
  ExtAckReport late = ack(96, received_but({97, 105, 113, 121}));
  late.bitmap |= uint64_t{1} << (128 - 96);
  EXPECT_TRUE(s.on_ack(late, window + 12 * kUs, rto).silent_evs.empty());  // past min RTT
  EXPECT_TRUE(s.on_ack(late, rto.rto_ns() + 1, rto).silent_evs.empty());
}

// The loss proven on its EV (a later packet of the EV in the same report) is congestion's
// kind: the EV delivered after it, so its silence never starts.
TEST(SentPsnRecords, AnEvThatDeliveredAPacketSentAfterItsLossIsNotSilent) {
  SentPsnRecords s(96, {});
  spray(s, 96, 32, 0, /*evs=*/8);
  const RtoEstimator rto = sampled({10 * kUs});
  const auto others = received_but({97, 121});  // 0xC001's first and last lost
  EXPECT_EQ(psns(s.on_ack(ack(96, others), rto.srtt_ns(), rto).retransmit),
            (std::vector<uint32_t>{97}));
  s.on_sent(97, rto.srtt_ns(), 0xC002, 0, false);
  s.on_sent(128, rto.srtt_ns(), 0xC001, 0, false);  // 0xC001 still in use
  EXPECT_TRUE(s.on_ack(ack(96, others), rto.rto_ns() + 1, rto).silent_evs.empty());
}

// An EV whose every packet was lost and repaired elsewhere, with nothing sent on it for an
// RTO since, is idle, not silent (a tail drop before a pause in the traffic).
TEST(SentPsnRecords, AnIdleEvIsNotSilent) {
  const RtoEstimator rto = sampled({10 * kUs});
  const uint64_t window = rto.srtt_ns() + 4 * rto.rttvar_ns();
  SentPsnRecords s = after_0xc001_lost(rto, window);
  s.on_sent(121, window, 0xC002, 0, false);  // the last of 0xC001's packets goes elsewhere too
  EXPECT_TRUE(s.on_ack(ack(97, received_but({})), window + 12 * kUs, rto).silent_evs.empty());
  EXPECT_TRUE(s.on_ack(ack(127, {}), rto.rto_ns() + 1, rto).silent_evs.empty());
}

TEST(SentPsnRecords, AnAraAckRepairsEveryHoleBeforeAReceivedPsnAtOnce) {
  SentPsnRecords s(96, {});
  send(s, 96, 12, 0);  // 96 .. 107; 100 and 101 lost, 102 received, 103 .. 107 lost
  const AckOutcome a = s.on_ack(ack(99, {102}, 8, /*ara=*/true), 100 * kUs, RtoEstimator({}));
  EXPECT_EQ(psns(a.retransmit), (std::vector<uint32_t>{100, 101}));
  EXPECT_EQ(a.retransmit[0].cause, RetransmitCause::kAraLoss);
}

// MR-OO-12, MR-NF-08: a PSN the receiver asked for later (RNR, NAK 0x6B) neither times out,
// nor is probed, nor is repaired by an ARA ACK before then; its RTO runs from that time.
TEST(SentPsnRecords, AHeldPsnIsNotRetransmittedBeforeItsTime) {
  SentPsnRecords s(100, {});
  const RtoEstimator rto({});
  send(s, 100, 3, 0);
  const uint64_t until = 3 * rto.rto_ns();
  s.hold(100, until);
  EXPECT_TRUE(
      s.on_ack(ack(99, {101, 102}, 8, /*ara=*/true), 2 * rto.rto_ns(), rto).retransmit.empty());
  EXPECT_TRUE(s.on_timer(until - 1, rto).retransmit.empty());
  EXPECT_EQ(s.next_timer_ns(rto), until + rto.rto_ns());
  EXPECT_EQ(psns(s.on_timer(until + rto.rto_ns(), rto).retransmit), (std::vector<uint32_t>{100}));
  s.hold(101, until);  // SACKed: nothing to hold
  EXPECT_EQ(s.next_timer_ns(rto), until + 2 * rto.rto_ns());
}

TEST(SentPsnRecords, TimesOutWithBackOffAndFailsAfterTheRetryBudget) {
  SentPsnRecords s(0, ExtSenderParameters{.retry_limit = 2});
  const RtoEstimator rto({});  // 500 us before a sample
  send(s, 0, 1, 0);
  EXPECT_TRUE(s.on_timer(499 * kUs, rto).retransmit.empty());
  uint64_t now = 500 * kUs;
  for (int timeout = 1; timeout <= 2; ++timeout) {
    const TimerOutcome t = s.on_timer(now, rto);
    ASSERT_EQ(psns(t.retransmit), (std::vector<uint32_t>{0})) << timeout;
    EXPECT_EQ(t.retransmit[0].cause, RetransmitCause::kTimeout);
    s.on_sent(0, now, 0xC000, 0, false);
    now += rto.backed_off(static_cast<unsigned>(timeout));  // 1 ms, then 2 ms
    EXPECT_TRUE(s.on_timer(now - 1, rto).retransmit.empty());
  }
  const TimerOutcome last = s.on_timer(now, rto);  // the third consecutive timeout
  ASSERT_TRUE(last.retry_exceeded);
  EXPECT_EQ(*last.retry_exceeded, 0u);
}

TEST(SentPsnRecords, NeverFailsWithUnlimitedRetries) {
  SentPsnRecords s(0, ExtSenderParameters{.retry_limit = ExtSenderParameters::kUnlimitedRetries});
  const RtoEstimator rto({});
  send(s, 0, 1, 0);
  uint64_t now = 0;
  for (int i = 0; i < 100; ++i) {
    now += 16'000 * kUs;
    const TimerOutcome t = s.on_timer(now, rto);
    ASSERT_FALSE(t.retry_exceeded) << i;
    s.on_sent(0, now, 0xC000, 0, false);
  }
}

TEST(SentPsnRecords, ACumulativeAdvanceRestartsTheRetryCount) {
  SentPsnRecords s(0, ExtSenderParameters{.retry_limit = 1});
  const RtoEstimator rto({});
  send(s, 0, 2, 0);
  s.on_timer(500 * kUs, rto);  // both time out once
  s.on_sent(0, 500 * kUs, 0, 0, false);
  s.on_sent(1, 500 * kUs, 0, 0, false);
  s.on_ack(ack(0, {}), 600 * kUs, rto);  // PSN 0 acknowledged: 1's run of timeouts ends
  const TimerOutcome t = s.on_timer(1'500 * kUs, rto);
  EXPECT_FALSE(t.retry_exceeded);
  EXPECT_EQ(psns(t.retransmit), (std::vector<uint32_t>{1}));
}

TEST(SentPsnRecords, ProbesTheNewestOutstandingPsnAfterThePtoOncePerProgress) {
  SentPsnRecords s(0, {});
  RtoEstimator rto({});
  rto.sample(20 * kUs);  // SRTT 20 us: PTO 40 us, RTO 60 us
  send(s, 0, 5, 0);
  EXPECT_TRUE(s.on_timer(39 * kUs, rto).retransmit.empty());
  TimerOutcome t = s.on_timer(40 * kUs, rto);
  ASSERT_EQ(psns(t.retransmit), (std::vector<uint32_t>{4}));
  EXPECT_EQ(t.retransmit[0].cause, RetransmitCause::kProbe);
  s.on_sent(4, 40 * kUs, 0xC000, 0, /*probe=*/true);
  EXPECT_TRUE(s.on_timer(59 * kUs, rto).retransmit.empty());  // one probe per progress
  s.on_ack(ack(0, {}), 70 * kUs, rto);                        // PSN 0 acknowledged: progress
  t = s.on_timer(75 * kUs, rto);  // RTO of 1 .. 3 (sent at 0) has passed: timeouts first
  EXPECT_EQ(psns(t.retransmit), (std::vector<uint32_t>{1, 2, 3, 4}));
}

TEST(SentPsnRecords, NoProbeBeforeTheFirstRttSample) {
  SentPsnRecords s(0, {});
  send(s, 0, 3, 0);
  EXPECT_TRUE(s.on_timer(400 * kUs, RtoEstimator({})).retransmit.empty());
}

TEST(SentPsnRecords, AProbeDoesNotRestartTheRto) {
  SentPsnRecords s(0, {});
  RtoEstimator rto({});
  rto.sample(20 * kUs);  // RTO 60 us
  send(s, 0, 1, 0);
  s.on_sent(0, 40 * kUs, 0xC000, 0, /*probe=*/true);
  EXPECT_EQ(psns(s.on_timer(60 * kUs, rto).retransmit), (std::vector<uint32_t>{0}));
}

TEST(SentPsnRecords, GrowsWithThePsnsInFlight) {
  SentPsnRecords s(0xfffff0, {});  // across the PSN wrap
  s.on_ack(ExtAckReport{.cumulative = 0xffffef, .mpr = 255}, 0, RtoEstimator({}));
  send(s, 0xfffff0, 16, 0);
  send(s, 0, 2000, 0);
  EXPECT_EQ(s.outstanding_count(), 2016u);
  EXPECT_GE(s.heap_bytes(), 2016 * sizeof(uint64_t));
  s.on_ack(ack(999, {}), 1, RtoEstimator({}));
  EXPECT_EQ(s.outstanding_count(), 1000u);
  EXPECT_TRUE(s.outstanding(1000));
  EXPECT_FALSE(s.outstanding(999));
}

TEST(SentPsnRecords, ATrimNakRetransmitsOnlyAnOutstandingPsn) {
  SentPsnRecords s(0, {});
  send(s, 0, 3, 0);
  s.on_ack(ack(0, {2}), 1, RtoEstimator({}));
  EXPECT_TRUE(s.on_trim_nak(1));
  EXPECT_FALSE(s.on_trim_nak(0));  // acknowledged
  EXPECT_FALSE(s.on_trim_nak(2));  // SACKed
  EXPECT_FALSE(s.on_trim_nak(9));  // never sent
}

}  // namespace
}  // namespace mr::transport::ext
