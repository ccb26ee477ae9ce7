// run_suite's --repeat and --jobs: every run on a DUT of its own with the run's seed, the
// repetitions of a test gathered into one result that shows the worst of them and flags a
// verdict that changed, and a single shared port refusing to run tests at once.
#include "harness/engine/suite_runner.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "harness/dut/embedded/embedded_reference_port.h"

namespace mr::engine {
namespace {

Pixit pixit() {
  auto p = Pixit::load("testcases/pixit/default.pixit.json");
  EXPECT_TRUE(p) << p.error();
  return *p;
}

std::string out_dir(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  return std::string(tmp != nullptr ? tmp : "/tmp") + "/suite-runner-" + name;
}

SuiteOptions options(const std::string& name) {
  SuiteOptions o;
  o.pics_path = "testcases/profiles/reference.pics.json";
  o.pixit_path = "testcases/pixit/default.pixit.json";
  o.filter = "RC-PSN-001,RC-PSN-002";
  o.out_dir = out_dir(name);
  o.seed = 7;
  return o;
}

// Embedded reference DUTs that remember the seed each was made with.
struct RecordingFactory {
  Pixit px = pixit();
  std::mutex mutex;
  std::vector<uint64_t> seeds;
  uint64_t fail_seed = 0;  // a seed for which no DUT can be made (0: none)

  PortFactory factory() {
    return [this](uint64_t seed) -> Expected<std::unique_ptr<DutPort>, std::string> {
      {
        std::lock_guard lock(mutex);
        seeds.push_back(seed);
      }
      if (fail_seed != 0 && seed == fail_seed)
        return Unexpected(std::string("no DUT for seed ") + std::to_string(seed));
      return std::make_unique<dut::EmbeddedReferencePort>(px, dut::EmbeddedOptions{.seed = seed});
    };
  }
};

// rxe under --profile metaroce-full: no MXCAP block, so none of Part II is the DUT's; Part I
// claims stay. A Part II DUT keeps what it lists, and one that lists nothing keeps all.
TEST(WithdrawPart2Claims, APart2FeatureTheDutDoesNotClaimIsNotApplicable) {
  const std::map<std::string, bool> profile = {
      {"rc.send", true}, {"ipv6", true}, {"ext.sack", true}, {"ext.cc", true}, {"ext.trim", false}};
  protocol::Capabilities verbs;
  verbs.pics = {"rc.send"};
  auto features = profile;
  EXPECT_EQ(withdraw_part2_claims(features, verbs),
            (std::vector<std::string>{"ext.cc", "ext.sack"}));
  EXPECT_TRUE(features.at("rc.send"));
  EXPECT_TRUE(features.at("ipv6")) << "Part I claims are the profile's";
  EXPECT_FALSE(features.at("ext.sack"));
  protocol::Capabilities part2;
  part2.mxcap = "4d525831";
  part2.pics = {"rc.send", "ext.sack"};
  features = profile;
  EXPECT_EQ(withdraw_part2_claims(features, part2), std::vector<std::string>{"ext.cc"});
  EXPECT_TRUE(features.at("ext.sack"));
  part2.pics.clear();
  features = profile;
  EXPECT_TRUE(withdraw_part2_claims(features, part2).empty()) << "no list: the profile's claims";
  EXPECT_TRUE(features.at("ext.cc"));
}

TEST(RepetitionSeed, TheFirstIsTheRunSeedAndTheOthersDiffer) {
  EXPECT_EQ(repetition_seed(7, 0), 7U);
  EXPECT_EQ(repetition_seed(0, 0), 0U);
  std::set<uint64_t> seen;
  for (uint64_t seed : {0ULL, 1ULL, 2ULL, 7ULL}) {
    for (int i = 0; i < 100; ++i) seen.insert(repetition_seed(seed, i));
  }
  EXPECT_EQ(seen.size(), 400U);  // no two (seed, index) pairs share a seed
  EXPECT_EQ(repetition_seed(7, 3), repetition_seed(7, 3));
}

TEST(RunSuite, RepeatRunsEachTestOnAFreshDutWithTheRepetitionsSeed) {
  RecordingFactory dut;
  auto o = options("repeat");
  o.repeat = 3;
  auto run = run_suite(dut.factory(), dut.px, o);
  ASSERT_TRUE(run) << run.error();
  EXPECT_EQ(run->repeat, 3);
  ASSERT_EQ(run->tests.size(), 2U);
  for (const auto& t : run->tests) {
    EXPECT_EQ(t.verdict, report::Verdict::kPass) << t.tp_id << ": " << t.reason;
    EXPECT_FALSE(t.flaky()) << t.tp_id;
    ASSERT_EQ(t.repetitions.size(), 3U) << t.tp_id;
    std::set<std::string> captures;
    for (int i = 0; i < 3; ++i) {
      const auto& r = t.repetitions[i];
      EXPECT_EQ(r.seed, repetition_seed(7, i));
      EXPECT_EQ(r.verdict, report::Verdict::kPass);
      EXPECT_TRUE(std::filesystem::exists(o.out_dir + "/" + r.capture)) << r.capture;
      captures.insert(r.capture);
    }
    EXPECT_EQ(captures.size(), 3U) << "each repetition has a capture of its own";
    EXPECT_EQ(t.capture, "captures/" + t.tp_id + ".pcapng");
  }
  // One DUT for the run's identity, then one per run: 2 tests x 3 repetitions.
  ASSERT_EQ(dut.seeds.size(), 1U + 6U);
  EXPECT_EQ(dut.seeds[0], 7U);
  for (size_t k = 1; k < dut.seeds.size(); ++k)
    EXPECT_EQ(dut.seeds[k], repetition_seed(7, static_cast<int>((k - 1) % 3)));
}

TEST(RunSuite, AVerdictThatChangesBetweenRepetitionsIsFlakyAndTheWorstIsShown) {
  RecordingFactory dut;
  dut.fail_seed = repetition_seed(7, 1);  // the second repetition of each test: error
  auto o = options("flaky");
  o.repeat = 3;
  o.jobs = 2;
  std::vector<std::string> reported;
  o.on_result = [&](const report::TestResult& t) { reported.push_back(t.tp_id); };
  auto run = run_suite(dut.factory(), dut.px, o);
  ASSERT_TRUE(run) << run.error();
  ASSERT_EQ(run->tests.size(), 2U);
  EXPECT_EQ(reported, (std::vector<std::string>{"RC-PSN-001", "RC-PSN-002"}));
  for (const auto& t : run->tests) {
    EXPECT_TRUE(t.flaky()) << t.tp_id;
    EXPECT_EQ(t.verdict, report::Verdict::kError) << t.tp_id;
    EXPECT_NE(t.reason.find("no DUT for seed"), std::string::npos) << t.reason;
    ASSERT_EQ(t.repetitions.size(), 3U);
    EXPECT_EQ(t.repetitions[0].verdict, report::Verdict::kPass);
    EXPECT_EQ(t.repetitions[1].verdict, report::Verdict::kError);
    EXPECT_EQ(t.repetitions[2].verdict, report::Verdict::kPass);
  }
  EXPECT_EQ(run->counts().at(report::Verdict::kError), 2);
}

TEST(RunSuite, ProgressCountsEveryRunInOrder) {
  RecordingFactory dut;
  auto o = options("progress");
  o.repeat = 2;
  o.jobs = 3;
  std::vector<SuiteProgress> seen;
  o.on_progress = [&](const SuiteProgress& p) { seen.push_back(p); };
  auto run = run_suite(dut.factory(), dut.px, o);
  ASSERT_TRUE(run) << run.error();
  ASSERT_EQ(seen.size(), 1U + 4U);
  for (size_t k = 0; k < seen.size(); ++k) {
    EXPECT_EQ(seen[k].done, k);
    EXPECT_EQ(seen[k].total, 4U);
    EXPECT_EQ(seen[k].counts.at(report::Verdict::kPass), static_cast<int>(k));
  }
  EXPECT_EQ(seen[0].current, "RC-PSN-001");
  EXPECT_EQ(seen[2].current, "RC-PSN-002");
  EXPECT_EQ(seen[4].current, "");
}

TEST(RunSuite, ASharedPortRunsOneTestAtATime) {
  const Pixit px = pixit();
  dut::EmbeddedReferencePort port(px, {.seed = 7});
  auto o = options("shared");
  o.jobs = 2;
  auto run = run_suite(port, px, o);
  ASSERT_FALSE(run);
  EXPECT_NE(run.error().find("one at a time"), std::string::npos) << run.error();
  o.jobs = 1;
  o.repeat = 2;
  auto serial = run_suite(port, px, o);
  ASSERT_TRUE(serial) << serial.error();
  ASSERT_EQ(serial->tests.size(), 2U);
  EXPECT_EQ(serial->tests[0].repetitions.size(), 2U);
  EXPECT_EQ(serial->tests[0].verdict, report::Verdict::kPass);
}

TEST(RunSuite, CancelledBeforeTheFirstRunReturnsNoTests) {
  RecordingFactory dut;
  auto o = options("cancelled");
  o.jobs = 2;
  o.cancelled = [] { return true; };
  auto run = run_suite(dut.factory(), dut.px, o);
  ASSERT_TRUE(run) << run.error();
  EXPECT_TRUE(run->cancelled);
  EXPECT_TRUE(run->tests.empty());
}

}  // namespace
}  // namespace mr::engine
