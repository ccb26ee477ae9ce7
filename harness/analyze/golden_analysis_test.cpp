// Every capture of pcaps/analyze/ (and the real rxe captures of pcaps/rxe/) still gives
// exactly its committed `metaroce analyze --json` output (the "file" member aside).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "harness/analyze/analyze_capture.h"

namespace mr::analyze {
namespace {

nlohmann::ordered_json analyze_json(const std::string& path) {
  ViolationList list;
  Analyzer a([&](const Violation& v) { list.add(v); });
  auto done = analyze_capture(path, a);
  std::optional<io::CaptureError> error;
  if (!done) error = done.error();
  return analysis_json(path, a, list, error);
}

TEST(GoldenAnalysis, EveryCaptureMatchesItsExpectedJson) {
  int checked = 0;
  for (const char* dir : {"pcaps/analyze", "pcaps/rxe"}) {
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
      if (e.path().extension() != ".pcapng") continue;
      std::filesystem::path expected_path = "pcaps/analyze/" + e.path().stem().string() + ".json";
      std::ifstream in(expected_path);
      ASSERT_TRUE(in) << "no expected output " << expected_path;
      auto expected = nlohmann::ordered_json::parse(in);
      auto actual = analyze_json(e.path().string());
      expected.erase("file");
      actual.erase("file");
      EXPECT_EQ(actual, expected) << e.path() << "\nactual: " << actual.dump(1);
      ++checked;
    }
  }
  EXPECT_GE(checked, 25);
}

}  // namespace
}  // namespace mr::analyze
