#include "reference/io/pcap_file_link.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

namespace mr::io {
namespace {

std::string tmp(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir ? dir : "/tmp") + "/" + name;
}

TEST(PcapFileLink, RecordsThenReplaysFramesWithTimestamps) {
  const std::string path = tmp("recorded.pcapng");
  std::vector<Frame> sent;
  for (uint8_t i = 0; i < 50; ++i) {
    sent.push_back(Frame{std::vector<uint8_t>(60 + i, i), 1'700'000'000'000'000'000ULL + i * 1000});
  }
  {
    auto recorder = PcapFileLink::open({.record = path});
    ASSERT_TRUE(recorder) << recorder.error();
    EXPECT_EQ(recorder->send_burst(sent), sent.size());
    std::vector<Frame> none(4);
    EXPECT_EQ(recorder->receive_burst(none, 1'000'000), 0U);  // nothing to replay
    EXPECT_TRUE(recorder->replay_done());
    ASSERT_TRUE(recorder->close());
  }
  auto replay = PcapFileLink::open({.replay = path});
  ASSERT_TRUE(replay) << replay.error();
  EXPECT_EQ(replay->send_burst(sent), 0U);  // no recording file
  std::vector<Frame> got;
  std::vector<Frame> burst(16);
  while (size_t n = replay->receive_burst(burst, 0)) {
    got.insert(got.end(), burst.begin(), burst.begin() + static_cast<long>(n));
  }
  EXPECT_TRUE(replay->replay_done());
  EXPECT_FALSE(replay->replay_error());
  ASSERT_EQ(got.size(), sent.size());
  for (size_t i = 0; i < sent.size(); ++i) {
    EXPECT_EQ(got[i].bytes, sent[i].bytes);
    EXPECT_EQ(got[i].timestamp_ns, sent[i].timestamp_ns);
  }
}

TEST(PcapFileLink, ReplaysARealRxeCapture) {
  auto link = PcapFileLink::open({.replay = "pcaps/rxe/rxe-6.1-ipv4-send-retransmits.pcapng"});
  ASSERT_TRUE(link) << link.error();
  std::vector<Frame> burst(32);
  size_t total = 0;
  uint64_t last_ts = 0;
  while (size_t n = link->receive_burst(burst, 0)) {
    for (size_t i = 0; i < n; ++i) {
      EXPECT_GE(burst[i].timestamp_ns, last_ts);
      last_ts = burst[i].timestamp_ns;
      EXPECT_GE(burst[i].bytes.size(), 14U);
    }
    total += n;
  }
  EXPECT_GT(total, 0U);
  EXPECT_FALSE(link->replay_error());
  EXPECT_NE(link->name().find("rxe-6.1-ipv4"), std::string::npos);
}

TEST(PcapFileLink, NamesTheFileItCannotOpen) {
  auto link = PcapFileLink::open({.replay = tmp("does-not-exist.pcap")});
  ASSERT_FALSE(link);
  EXPECT_NE(link.error().find("does-not-exist.pcap"), std::string::npos);
}

TEST(PcapFileLink, StopsAtDamageAfterDeliveringWhatCameBefore) {
  const std::string path = tmp("damaged.pcapng");
  {
    auto recorder = PcapFileLink::open({.record = path});
    ASSERT_TRUE(recorder);
    std::vector<Frame> frames(3, Frame{std::vector<uint8_t>(100, 0xab), 5});
    ASSERT_EQ(recorder->send_burst(frames), 3U);
    ASSERT_TRUE(recorder->close());
  }
  ASSERT_EQ(truncate(path.c_str(), static_cast<off_t>(std::filesystem::file_size(path) - 20)), 0);
  auto replay = PcapFileLink::open({.replay = path});
  ASSERT_TRUE(replay);
  std::vector<Frame> burst(8);
  EXPECT_EQ(replay->receive_burst(burst, 0), 2U);
  EXPECT_TRUE(replay->replay_done());
  ASSERT_TRUE(replay->replay_error());
  EXPECT_EQ(replay->receive_burst(burst, 0), 0U);
}

}  // namespace
}  // namespace mr::io
