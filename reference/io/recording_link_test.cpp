#include "reference/io/recording_link.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "reference/io/capture_reader.h"
#include "reference/io/clock.h"
#include "reference/io/memory_link.h"

namespace mr::io {
namespace {

std::string tmp(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir ? dir : "/tmp") + "/" + name;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

struct Read {
  std::vector<uint8_t> first_byte;  // each frame's first byte: which frame it is
  std::vector<uint64_t> t_ns;
  std::vector<uint32_t> interface;
  std::vector<std::string> comment;  // the first comment
};

Read read_back(const std::string& path) {
  Read out;
  auto r = CaptureReader::open(path);
  EXPECT_TRUE(r) << r.error().to_string();
  if (!r) return out;
  for (int i = 0; i < 100000; ++i) {
    auto f = r->next();
    EXPECT_TRUE(f) << f.error().to_string();
    if (!f || !*f) break;
    out.first_byte.push_back((*f)->data.empty() ? 0 : (*f)->data[0]);
    out.t_ns.push_back((*f)->timestamp_ns);
    out.interface.push_back((*f)->interface);
    out.comment.emplace_back((*f)->comment);
  }
  return out;
}

std::vector<uint8_t> frame(uint8_t id) {
  std::vector<uint8_t> f(60, 0);
  f[0] = id;
  return f;
}

constexpr uint64_t kT = 1'700'000'000'000'000'000ULL;
using Direction = RecordingLink::Direction;

TEST(RecordingLink, FramesRecordedOutOfOrderAreWrittenInTimeOrder) {
  const std::string path = tmp("out_of_order.pcapng");
  {
    auto rec = RecordingLink::create(path, {});
    ASSERT_TRUE(rec) << rec.error();
    (*rec)->record(frame(1), kT + 100, Direction::kSent, "t.mrt:3 inject");
    (*rec)->record(frame(3), kT + 300, Direction::kReceived, "t.mrt:5 expect");
    (*rec)->record(frame(2), kT + 200, Direction::kReceived, "t.mrt:4 event delay");
    (*rec)->record(frame(4), kT + 300, Direction::kSent, "same time: after frame 3");
    ASSERT_TRUE((*rec)->close());
  }
  const Read r = read_back(path);
  EXPECT_EQ(r.first_byte, (std::vector<uint8_t>{1, 2, 3, 4}));
  EXPECT_TRUE(std::is_sorted(r.t_ns.begin(), r.t_ns.end()));
  EXPECT_EQ(r.interface, (std::vector<uint32_t>{0, 1, 1, 0}));
  EXPECT_EQ(r.comment[1], "t.mrt:4 event delay");
}

TEST(RecordingLink, ASnappedFrameKeepsItsFirstBytesAndItsLengthOnTheWire) {
  const std::string path = tmp("snapped.pcapng");
  {
    auto rec = RecordingLink::create(path, {});
    ASSERT_TRUE(rec) << rec.error();
    (*rec)->record(frame(1), kT + 100, Direction::kReceived, "whole");
    (*rec)->record(frame(2), kT + 200, Direction::kReceived, "headers", 16);
    (*rec)->record(frame(3), kT + 300, Direction::kReceived, "short already", 600);
    ASSERT_TRUE((*rec)->close());
  }
  auto r = CaptureReader::open(path);
  ASSERT_TRUE(r) << r.error().to_string();
  std::vector<std::pair<size_t, uint32_t>> lengths;  // captured, on the wire
  for (int i = 0; i < 10; ++i) {
    auto f = r->next();
    ASSERT_TRUE(f) << f.error().to_string();
    if (!*f) break;
    lengths.emplace_back((*f)->data.size(), (*f)->original_length);
    EXPECT_EQ((*f)->data[0], i + 1);
  }
  EXPECT_EQ(lengths, (std::vector<std::pair<size_t, uint32_t>>{{60, 60}, {16, 60}, {60, 60}}));
}

TEST(RecordingLink, TheInterfacesCarryTheNamesGiven) {
  const std::string path = tmp("names.pcapng");
  {
    auto rec =
        RecordingLink::create(path, {.sent = "reference->rxe", .received = "rxe->reference"});
    ASSERT_TRUE(rec) << rec.error();
    (*rec)->record(frame(1), kT, Direction::kReceived, "");
  }
  const std::string bytes = slurp(path);
  EXPECT_NE(bytes.find("reference->rxe"), std::string::npos);
  EXPECT_NE(bytes.find("rxe->reference"), std::string::npos);
  EXPECT_EQ(read_back(path).interface, (std::vector<uint32_t>{1}));
}

TEST(RecordingLink, AnnotateAddsACommentAfterTheFirstUntilTheFrameIsWritten) {
  const std::string path = tmp("annotate.pcapng");
  {
    auto rec = RecordingLink::create(path, {.window = 2});
    ASSERT_TRUE(rec) << rec.error();
    const uint64_t a = (*rec)->record(frame(1), kT + 1, Direction::kReceived, "t.mrt:7 expect");
    EXPECT_TRUE((*rec)->annotate(a, "BTH.psn: expected 0x000001, actual 0x000002"));
    (*rec)->record(frame(2), kT + 2, Direction::kReceived, "");
    (*rec)->record(frame(3), kT + 3, Direction::kReceived, "");  // the window writes frame 1
    EXPECT_FALSE((*rec)->annotate(a, "too late"));
    EXPECT_FALSE((*rec)->annotate(99, "never recorded"));
  }
  const Read r = read_back(path);
  ASSERT_EQ(r.comment.size(), 3U);
  EXPECT_EQ(r.comment[0], "t.mrt:7 expect");  // the script line stays the first comment
  const std::string bytes = slurp(path);
  EXPECT_NE(bytes.find("BTH.psn: expected 0x000001, actual 0x000002"), std::string::npos);
  EXPECT_EQ(bytes.find("too late"), std::string::npos);
}

TEST(RecordingLink, AFrameLaterThanTheWindowKeepsTheOrderAndSaysItsTime) {
  const std::string path = tmp("late.pcapng");
  {
    auto rec = RecordingLink::create(path, {.window = 1});
    ASSERT_TRUE(rec) << rec.error();
    (*rec)->record(frame(1), kT + 500, Direction::kSent, "");
    (*rec)->record(frame(2), kT + 600, Direction::kSent, "");  // frame 1 is written
    (*rec)->record(frame(3), kT + 100, Direction::kSent, "late");
    ASSERT_TRUE((*rec)->close());
  }
  const Read r = read_back(path);
  EXPECT_EQ(r.first_byte, (std::vector<uint8_t>{1, 3, 2}));
  EXPECT_TRUE(std::is_sorted(r.t_ns.begin(), r.t_ns.end()));
  EXPECT_NE(slurp(path).find("its time is " + std::to_string(kT + 100)), std::string::npos);
}

TEST(RecordingLink, AFileThatCannotBeCreatedIsAnErrorNamingIt) {
  auto rec = RecordingLink::create("/nonexistent-dir/x.pcapng", {});
  ASSERT_FALSE(rec);
  EXPECT_NE(rec.error().find("/nonexistent-dir/x.pcapng"), std::string::npos);
}

TEST(RecordingLink, AsADecoratorItPassesFramesThroughAndRecordsBothDirections) {
  const std::string path = tmp("decorator.pcapng");
  SystemClock clock;
  MemoryLinkPair pair(clock);
  {
    auto rec = RecordingLink::create(
        path, {.sent_comment = "reference peer", .received_comment = "tool"}, &pair.a());
    ASSERT_TRUE(rec) << rec.error();
    const std::vector<Frame> out{{frame(1), 0}, {frame(2), 0}};
    EXPECT_EQ((*rec)->send_burst(out), 2U);
    std::vector<Frame> got(4);
    EXPECT_EQ(pair.b().receive_burst(got, 100'000'000), 2U);
    ASSERT_EQ(pair.b().send_burst(std::span(got.data(), 1)), 1U);
    std::vector<Frame> back(4);
    EXPECT_EQ((*rec)->receive_burst(back, 100'000'000), 1U);
    EXPECT_EQ(back[0].bytes, frame(1));
    EXPECT_EQ((*rec)->frames(), 3U);
    ASSERT_TRUE((*rec)->close());
  }
  const Read r = read_back(path);
  EXPECT_EQ(r.first_byte, (std::vector<uint8_t>{1, 2, 1}));
  EXPECT_EQ(r.interface, (std::vector<uint32_t>{0, 0, 1}));
  EXPECT_EQ(r.comment, (std::vector<std::string>{"reference peer", "reference peer", "tool"}));
  EXPECT_TRUE(std::is_sorted(r.t_ns.begin(), r.t_ns.end()));
}

TEST(RecordingLink, ALongCaptureIsWrittenAsItGoesNotHeldWhole) {
  const std::string path = tmp("long.pcapng");
  auto rec = RecordingLink::create(path, {.window = 16});
  ASSERT_TRUE(rec) << rec.error();
  for (uint64_t i = 0; i < 1000; ++i)
    (*rec)->record(std::vector<uint8_t>(1024, 0), kT + i, Direction::kSent, "");
  // All but the window's 16 frames are in the file before close().
  EXPECT_GE(slurp(path).size(), 984U * 1024U);
  ASSERT_TRUE((*rec)->close());
  EXPECT_EQ(read_back(path).t_ns.size(), 1000U);
}

TEST(RecordingLink, ThreadsRecordingAtOnceLoseNoFrame) {
  const std::string path = tmp("threads.pcapng");
  {
    auto rec = RecordingLink::create(path, {.window = 8});
    ASSERT_TRUE(rec) << rec.error();
    std::vector<std::thread> threads;
    threads.reserve(4);
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&, t] {
        for (uint64_t i = 0; i < 250; ++i)
          (*rec)->record(frame(static_cast<uint8_t>(t)), kT + i * 4 + t, Direction::kSent, "");
      });
    }
    for (auto& th : threads) th.join();
    ASSERT_TRUE((*rec)->close());
  }
  const Read r = read_back(path);
  EXPECT_EQ(r.t_ns.size(), 1000U);
  EXPECT_TRUE(std::is_sorted(r.t_ns.begin(), r.t_ns.end()));
}

}  // namespace
}  // namespace mr::io
