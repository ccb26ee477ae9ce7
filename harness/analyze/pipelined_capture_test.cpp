// analyze_capture_pipelined (decode on a second thread) gives exactly what analyze_capture
// gives on one: every violation in frame order, the counts, the flows, the reader's error.
#include "harness/analyze/pipelined_capture.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "harness/analyze/analyze_capture.h"
#include "harness/analyze/report.h"
#include "reference/io/capture_reader.h"
#include "reference/io/pcapng_writer.h"
#include "reference/wire/frame_builder.h"
#include "reference/wire/opcode.h"

namespace mr::analyze {
namespace {

// Every violation (unlimited, unlike ViolationList) and the whole `--json` document.
struct Outcome {
  std::vector<std::string> violations;
  std::string json;
};

template <typename Run>
Outcome analyze_with(const std::string& path, Run run) {
  Outcome o;
  ViolationList list;
  Analyzer a([&](const Violation& v) {
    o.violations.push_back(violation_line(v));
    list.add(v);
  });
  auto done = run(path, a);
  std::optional<io::CaptureError> error;
  if (!done) error = done.error();
  o.json = analysis_json(path, a, list, error).dump();
  return o;
}

void expect_same_on_both_paths(const std::string& path) {
  const Outcome one =
      analyze_with(path, [](const std::string& p, Analyzer& a) { return analyze_capture(p, a); });
  const Outcome two = analyze_with(
      path, [](const std::string& p, Analyzer& a) { return analyze_capture_pipelined(p, a); });
  EXPECT_EQ(two.violations, one.violations) << path;
  EXPECT_EQ(two.json, one.json) << path;
}

std::vector<std::filesystem::path> committed_captures() {
  std::vector<std::filesystem::path> paths;
  for (const char* dir : {"pcaps/analyze", "pcaps/rxe"}) {
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
      if (e.path().extension() == ".pcapng") paths.push_back(e.path());
    }
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

TEST(PipelinedCapture, CommittedCapturesGiveTheSingleThreadAnalysis) {
  const auto paths = committed_captures();
  ASSERT_GE(paths.size(), 25U);
  for (const auto& p : paths) expect_same_on_both_paths(p.string());
}

// Every committed capture's frames (with their comments, so the tester's packets stay
// marked), round after round, as one capture: planted violations everywhere, flows that
// recur, and many more frames than the ring between the stages holds.
std::string write_concatenated_captures(int rounds) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  std::string out = std::string(tmp ? tmp : "/tmp") + "/pipelined_concatenated.pcapng";
  auto writer = io::PcapngWriter::create(out, "pipelined_capture_test");
  EXPECT_TRUE(writer) << writer.error();
  uint64_t t = 1'700'000'000'000'000'000ULL;
  for (int r = 0; r < rounds; ++r) {
    for (const auto& path : committed_captures()) {
      auto reader = io::CaptureReader::open(path.string());
      EXPECT_TRUE(reader) << path;
      // Bounded: a capture of the corpus has a few hundred frames.
      for (int i = 0; i < 1'000'000; ++i) {
        auto f = reader->next();
        if (!f || !*f) break;
        const std::string comment((*f)->comment);
        t += 1000;
        EXPECT_TRUE(writer->write((*f)->data, t, comment));
      }
    }
  }
  EXPECT_TRUE(writer->close());
  return out;
}

TEST(PipelinedCapture, LargeCaptureWithPlantedViolationsGivesTheSingleThreadAnalysis) {
  const std::string path = write_concatenated_captures(40);
  const Outcome one =
      analyze_with(path, [](const std::string& p, Analyzer& a) { return analyze_capture(p, a); });
  ASSERT_GT(nlohmann::json::parse(one.json)["frames"].get<uint64_t>(),
            10 * kBatches * kBatchFrames);
  ASSERT_GT(one.violations.size(), 1000U);  // the planted ones, and the rounds' repeats
  expect_same_on_both_paths(path);
}

TEST(PipelinedCapture, TruncatedCaptureGivesTheSameErrorAndAnalysisBeforeIt) {
  const std::string whole = write_concatenated_captures(3);
  const std::string cut = whole + ".cut";
  std::filesystem::copy_file(whole, cut, std::filesystem::copy_options::overwrite_existing);
  // Ends inside a frame's block, well past the first batches.
  std::filesystem::resize_file(cut, std::filesystem::file_size(whole) * 2 / 3 + 7);
  const Outcome one =
      analyze_with(cut, [](const std::string& p, Analyzer& a) { return analyze_capture(p, a); });
  ASSERT_TRUE(nlohmann::json::parse(one.json).contains("error"));
  expect_same_on_both_paths(cut);
}

// The harness comments each packet it sends "<script>:<line> inject" (or "probe"); the
// reader hands the comment over with the frame, and a violation on such a packet counts as
// the tester's, on both paths.
TEST(PipelinedCapture, PacketCommentsMarkTheTestersPacketsOnBothPaths) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string path = std::string(tmp ? tmp : "/tmp") + "/tester_marks.pcapng";
  {
    auto writer = io::PcapngWriter::create(path, "pipelined_capture_test");
    ASSERT_TRUE(writer) << writer.error();
    const std::vector<std::string> comments{"t.mrt:3 inject", "t.mrt:4 expect", "",
                                            "t.mrt:9 probe"};
    for (uint32_t i = 0; i < comments.size(); ++i) {
      wire::RocePacket p;
      wire::Ipv4 ip;
      ip.src = *wire::Ipv4Address::parse("198.18.0.2");
      ip.dst = *wire::Ipv4Address::parse("198.18.0.1");
      p.ip = ip;
      p.bth.opcode = wire::kOpRcSendOnly;
      p.bth.ackreq = 1;
      p.bth.dqpn = 0x123;
      p.bth.psn = 5 + i;
      p.bth.version = 2;  // MR-WF-02, on every packet (TVer 1 would make them Ext packets)
      const auto frame = wire::build_frame(p, {.fill_padding = true, .fill_icrc = true});
      ASSERT_TRUE(writer->write(frame, 1'700'000'000'000'000'000ULL + i * 1000, comments[i]));
    }
    ASSERT_TRUE(writer->close());
  }
  for (const bool pipelined : {false, true}) {
    std::vector<bool> by_tester;
    Analyzer a([&](const Violation& v) {
      if (v.clause == "MR-WF-02") by_tester.push_back(v.by_tester);
    });
    auto done = pipelined ? analyze_capture_pipelined(path, a) : analyze_capture(path, a);
    ASSERT_TRUE(done) << done.error().to_string();
    EXPECT_EQ(by_tester, (std::vector<bool>{true, false, false, true}))
        << "pipelined " << pipelined;
    EXPECT_EQ(a.counts().tester_violations, 2U) << "pipelined " << pipelined;
  }
}

TEST(PipelinedCapture, MissingFileIsTheReadersError) {
  Analyzer a([](const Violation&) {});
  auto done = analyze_capture_pipelined("pcaps/analyze/no-such-capture.pcapng", a);
  ASSERT_FALSE(done);
  EXPECT_EQ(a.counts().frames, 0U);
}

}  // namespace
}  // namespace mr::analyze
