// The harness tests itself: each script in harness/engine/selftest/ declares the verdict it
// must get (`# expect-verdict:`), a text one of its failures must contain
// (`# expect-failure:`), and the reference mutant it runs against (`# mutant:`), and this
// test checks every declaration against the embedded reference DUT. packetdrill's own
// tests only ever ran green; these prove that each kind of mismatch is reported, where and
// how.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "harness/dut/embedded/embedded_reference_port.h"
#include "harness/engine/suite_runner.h"
#include "harness/engine/test_runner.h"
#include "harness/script/parser.h"

namespace mr::engine {
namespace {

constexpr const char* kSelfTestDir = "harness/engine/selftest";

// How a failure reads in a declaration: "LINE: FIELD: expected E, actual A (MESSAGE)", or
// "LINE: MESSAGE" for a harness error (it has no field).
std::string rendered(const report::Failure& f) {
  if (f.field.empty()) return std::to_string(f.line) + ": " + f.message;
  return std::to_string(f.line) + ": " + f.field + ": expected " + f.expected + ", actual " +
         f.actual + " (" + f.message + ")";
}

std::vector<std::string> self_tests() {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(kSelfTestDir)) {
    if (e.path().extension() == ".mrt") out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

class SelfTest : public ::testing::TestWithParam<std::string> {};

TEST_P(SelfTest, GetsTheVerdictAndFailureItDeclares) {
  auto parsed = script::parse_file(GetParam());
  ASSERT_TRUE(parsed.ok()) << parsed.diagnostics[0].to_string();
  const auto& meta = parsed.script.metadata;
  ASSERT_TRUE(meta.contains("expect-verdict"))
      << GetParam() << ": a self-test declares its verdict";
  auto pixit = Pixit::load("testcases/pixit/default.pixit.json");
  ASSERT_TRUE(pixit) << pixit.error();
  auto pics = load_pics("testcases/profiles/reference.pics.json");
  ASSERT_TRUE(pics) << pics.error();
  std::vector<std::string> mutants;
  if (meta.contains("mutant")) mutants.push_back(meta.at("mutant"));
  dut::EmbeddedReferencePort port(*pixit, {.seed = 7, .mutants = mutants});
  TestOptions options;
  options.seed = 7;
  options.pics = *pics;
  const report::TestResult r = run_test(parsed.script, port, *pixit, options);

  std::string all;
  for (const auto& f : r.failures) all += "\n  " + rendered(f);
  EXPECT_EQ(report::to_string(r.verdict), meta.at("expect-verdict"))
      << GetParam() << ": reason '" << r.reason << "', failures:" << all;
  if (meta.contains("expect-failure")) {
    const std::string& want = meta.at("expect-failure");
    const bool found = std::any_of(r.failures.begin(), r.failures.end(), [&](const auto& f) {
      return rendered(f).find(want) != std::string::npos;
    });
    EXPECT_TRUE(found) << GetParam() << ": no failure contains '" << want << "'; failures:" << all;
  } else {
    EXPECT_TRUE(r.failures.empty()) << GetParam() << ": undeclared failures:" << all;
  }
}

INSTANTIATE_TEST_SUITE_P(Scripts, SelfTest, ::testing::ValuesIn(self_tests()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = std::filesystem::path(info.param).stem().string();
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

// The declarations must be able to fail: a script whose mutant is switched off gets another
// verdict than it declares.
TEST(SelfTestDeclarations, AFieldMismatchScriptPassesWithoutItsMutant) {
  auto parsed = script::parse_file(std::string(kSelfTestDir) + "/SELF-002-field.mrt");
  ASSERT_TRUE(parsed.ok());
  ASSERT_EQ(parsed.script.metadata.at("expect-verdict"), "fail");
  auto pixit = Pixit::load("testcases/pixit/default.pixit.json");
  ASSERT_TRUE(pixit);
  dut::EmbeddedReferencePort port(*pixit, {.seed = 7, .mutants = {}});
  TestOptions options;
  options.pics = {{"rc.send", true}};
  EXPECT_EQ(run_test(parsed.script, port, *pixit, options).verdict, report::Verdict::kPass);
}

}  // namespace
}  // namespace mr::engine
