#include "harness/replay/capture_injector.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "harness/replay/recorded_connection.h"
#include "reference/io/capture_reader.h"
#include "reference/io/clock.h"
#include "reference/io/memory_link.h"
#include "reference/io/pcapng_writer.h"

namespace mr::replay {
namespace {

constexpr const char* kRxeCapture = "pcaps/rxe/rxe-6.1-ipv4-send-retransmits.pcapng";
constexpr const char* kRxeIpv6Capture = "pcaps/rxe/rxe-6.1-ipv6-send-retransmits.pcapng";

std::string temp_path(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir != nullptr ? dir : "/tmp") + "/" + name;
}

// A capture of frames whose bytes say their index, at the given times.
std::string write_capture(const std::string& name, const std::vector<uint64_t>& times_ns) {
  std::string path = temp_path(name);
  auto w = io::PcapngWriter::create(path, "capture_injector_test");
  EXPECT_TRUE(w.has_value());
  for (size_t i = 0; i < times_ns.size(); ++i) {
    std::vector<uint8_t> frame(60 + i % 7, static_cast<uint8_t>(i));
    EXPECT_TRUE(w->write(frame, times_ns[i]).has_value());
  }
  EXPECT_TRUE(w->close().has_value());
  return path;
}

std::vector<std::vector<uint8_t>> frames_of(const std::string& path) {
  std::vector<std::vector<uint8_t>> frames;
  auto reader = io::CaptureReader::open(path);
  EXPECT_TRUE(reader.has_value());
  for (size_t bound = 0; bound < 1'000'000; ++bound) {
    auto f = reader->next();
    if (!f || !*f) break;
    frames.emplace_back((*f)->data.begin(), (*f)->data.end());
  }
  return frames;
}

std::vector<std::vector<uint8_t>> drain(io::Link& link) {
  std::vector<std::vector<uint8_t>> got;
  std::vector<io::Frame> in(64);
  for (size_t n = link.receive_burst(in, 0); n > 0; n = link.receive_burst(in, 0)) {
    for (size_t i = 0; i < n; ++i) got.push_back(in[i].bytes);
  }
  return got;
}

class RefusingLink final : public io::Link {
 public:
  size_t send_burst(std::span<const io::Frame>) override { return 0; }
  size_t receive_burst(std::span<io::Frame>, uint64_t) override { return 0; }
  std::string name() const override { return "refusing"; }
};

TEST(CaptureInjector, FastReplaySendsEveryFrameUnchangedAndInOrder) {
  std::vector<uint64_t> times(100);
  for (size_t i = 0; i < times.size(); ++i) times[i] = 1'000'000'000 + i * 1'000;
  const std::string path = write_capture("all.pcapng", times);
  io::VirtualClock clock;
  io::MemoryLinkPair pair(clock);
  auto r = inject_capture(path, pair.a(), {.fast = true});
  ASSERT_TRUE(r.has_value()) << r.error();
  EXPECT_EQ(r->frames_in_capture, 100u);
  EXPECT_EQ(r->selected, 100u);
  EXPECT_EQ(r->sent, 100u);
  EXPECT_EQ(drain(pair.b()), frames_of(path));
}

// The two rxe captures (one connection each, IPv4 and IPv6) interleaved frame by frame.
std::string two_connection_capture() {
  const auto v4 = frames_of(kRxeCapture);
  const auto v6 = frames_of(kRxeIpv6Capture);
  std::string path = temp_path("two-connections.pcapng");
  auto w = io::PcapngWriter::create(path, "capture_injector_test");
  EXPECT_TRUE(w.has_value());
  uint64_t t = 1'000'000'000;
  for (size_t i = 0; i < std::max(v4.size(), v6.size()); ++i) {
    if (i < v4.size()) {
      EXPECT_TRUE(w->write(v4[i], t += 1'000).has_value());
    }
    if (i < v6.size()) {
      EXPECT_TRUE(w->write(v6[i], t += 1'000).has_value());
    }
  }
  EXPECT_TRUE(w->close().has_value());
  return path;
}

TEST(CaptureInjector, ConnectionOptionSendsOnlyThatConnectionsFrames) {
  const std::string path = two_connection_capture();
  const auto all = frames_of(path);
  size_t selected_in_total = 0;
  for (size_t index : {0u, 1u}) {
    auto c = extract_connection(path, index);
    ASSERT_TRUE(c.has_value()) << c.error();
    ASSERT_EQ(c->connections_in_capture, 2u);
    std::vector<std::vector<uint8_t>> expected;
    for (const RecordedPacket& p : c->packets) expected.push_back(all.at(p.frame_number - 1));
    ASSERT_LT(expected.size(), all.size());  // else the selection would prove nothing

    io::VirtualClock clock;
    io::MemoryLinkPair pair(clock, {.capacity = 100'000});
    auto r = inject_capture(path, pair.a(), {.connection = index, .fast = true});
    ASSERT_TRUE(r.has_value()) << r.error();
    EXPECT_EQ(r->frames_in_capture, all.size());
    EXPECT_EQ(r->selected, expected.size());
    EXPECT_EQ(drain(pair.b()), expected);
    selected_in_total += expected.size();
  }
  EXPECT_EQ(selected_in_total, all.size());  // every frame of these captures is RC
}

TEST(CaptureInjector, ConnectionBeyondTheCapturesIsAnError) {
  io::VirtualClock clock;
  io::MemoryLinkPair pair(clock);
  auto r = inject_capture(kRxeCapture, pair.a(), {.connection = 1000, .fast = true});
  ASSERT_FALSE(r.has_value());
  EXPECT_TRUE(drain(pair.b()).empty());
}

TEST(CaptureInjector, PacedReplayKeepsTheRecordedGaps) {
  const std::string path =
      write_capture("paced.pcapng", {5'000'000'000, 5'030'000'000, 5'060'000'000});
  io::VirtualClock clock;
  io::MemoryLinkPair pair(clock);
  auto r = inject_capture(path, pair.a());
  ASSERT_TRUE(r.has_value()) << r.error();
  EXPECT_EQ(r->sent, 3u);
  EXPECT_GE(r->elapsed_ns, 60'000'000u);
}

TEST(CaptureInjector, PacedReplayShortensAGapLongerThanTheLimit) {
  const std::string path = write_capture("idle-hour.pcapng", {1'000'000'000, 3'601'000'000'000});
  io::VirtualClock clock;
  io::MemoryLinkPair pair(clock);
  auto r = inject_capture(path, pair.a(), {.max_gap_ns = 20'000'000});
  ASSERT_TRUE(r.has_value()) << r.error();
  EXPECT_EQ(r->sent, 2u);
  EXPECT_GE(r->elapsed_ns, 20'000'000u);
  EXPECT_LT(r->elapsed_ns, 10'000'000'000u);
}

TEST(CaptureInjector, ALinkThatRefusesEveryFrameEndsTheReplayWithAnError) {
  const std::string path = write_capture("refused.pcapng", {1'000, 2'000});
  RefusingLink link;
  auto r = inject_capture(path, link, {.fast = true, .stall_limit_ns = 5'000'000});
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().find("refusing: refused frames for 5 ms after 0 sent"), std::string::npos)
      << r.error();
}

TEST(CaptureInjector, AMissingCaptureIsAnErrorNamingTheFile) {
  io::VirtualClock clock;
  io::MemoryLinkPair pair(clock);
  auto r = inject_capture(temp_path("no-such.pcapng"), pair.a(), {.fast = true});
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().find("no-such.pcapng"), std::string::npos) << r.error();
}

}  // namespace
}  // namespace mr::replay
