// `metaroce run --jobs 3` writes the reports of `--jobs 1`: the base suite on the embedded
// reference both ways, every report file compared once its wall-clock fields (start time,
// durations, and the output digests that cover them) are masked, and every capture
// compared byte for byte.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>

#include "harness/cli/run_command.h"

namespace mr::cli {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Under ThreadSanitizer (about ten times slower) one folder of the suite, 24 tests, still
// keep three jobs overlapping all the way; elsewhere the whole base suite.
#if defined(__SANITIZE_THREAD__)
constexpr const char* kSuite = "testcases/base/psn/";
constexpr size_t kAtLeastTests = 20;
#else
constexpr const char* kSuite = "testcases/base/";
constexpr size_t kAtLeastTests = 100;
#endif

std::string run_into(const std::string& name, int jobs) {
  std::string out = std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
  RunOptions o;
  o.out = out;
  o.filter = kSuite;
  o.jobs = jobs;
  o.no_progress = true;
  o.quiet = true;
  EXPECT_EQ(run_with(o), 0) << "jobs " << jobs;
  return out;
}

// report.json without its wall-clock fields.
nlohmann::json report_without_clock(const fs::path& p) {
  auto j = nlohmann::json::parse(slurp(p));
  j.erase("started_at");
  j.erase("duration_s");
  for (auto& t : j["tests"]) {
    t.erase("duration_s");
    for (auto& r : t["repetitions"]) r.erase("duration_s");
  }
  return j;
}

// A text report with times of day and durations replaced by placeholders.
std::string text_without_clock(const fs::path& p) {
  static const std::regex kStamp(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)");
  static const std::regex kXmlTime(R"( time="[0-9.]+")");
  static const std::regex kSeconds(R"([0-9]+\.[0-9]+ s\b)");
  std::string s = slurp(p);
  s = std::regex_replace(s, kStamp, "TIME");
  s = std::regex_replace(s, kXmlTime, R"( time="T")");
  return std::regex_replace(s, kSeconds, "N s");
}

TEST(RunJobs, ThreeAtOnceWriteTheReportsOfOneAtATime) {
  const fs::path serial = run_into("jobs1", 1);
  const fs::path parallel = run_into("jobs3", 3);

  const auto a = report_without_clock(serial / "report.json");
  const auto b = report_without_clock(parallel / "report.json");
  ASSERT_GT(a["tests"].size(), kAtLeastTests) << kSuite;
  for (size_t i = 0; i < a["tests"].size() && i < b["tests"].size(); ++i) {
    EXPECT_EQ(a["tests"][i]["tp_id"], b["tests"][i]["tp_id"]) << "order at " << i;
    EXPECT_EQ(a["tests"][i]["verdict"], b["tests"][i]["verdict"]) << a["tests"][i]["tp_id"];
    EXPECT_EQ(a["tests"][i]["packets"], b["tests"][i]["packets"]) << a["tests"][i]["tp_id"];
  }
  EXPECT_EQ(a, b) << "report.json differs beyond its wall-clock fields";

  for (const char* file : {"junit.xml", "index.html", "summary.md"}) {
    EXPECT_EQ(text_without_clock(serial / file), text_without_clock(parallel / file)) << file;
  }
  auto manifest = [](const fs::path& p) {
    auto j = nlohmann::json::parse(slurp(p));
    j.erase("started_at");
    j.erase("outputs");  // digests of the files above, which hold durations
    return j;
  };
  EXPECT_EQ(manifest(serial / "manifest.json"), manifest(parallel / "manifest.json"));

  size_t captures = 0;
  for (const auto& e : fs::directory_iterator(serial / "captures")) {
    const fs::path other = parallel / "captures" / e.path().filename();
    ASSERT_TRUE(fs::exists(other)) << other;
    EXPECT_EQ(slurp(e.path()), slurp(other)) << e.path().filename() << " differs";
    ++captures;
  }
  EXPECT_GT(captures, kAtLeastTests);
  EXPECT_EQ(captures,
            static_cast<size_t>(std::distance(fs::directory_iterator(parallel / "captures"),
                                              fs::directory_iterator())));
}

}  // namespace
}  // namespace mr::cli
