// What `metaroce run` refuses and how it ends: a CI job that tested nothing, or judged
// nothing, must not be green; a run directory shows one run only.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>

#include "harness/cli/build_commit.h"
#include "harness/cli/command.h"
#include "harness/cli/repository_file.h"
#include "harness/cli/run_command.h"

namespace mr::cli {
namespace {

namespace fs = std::filesystem;

RunOptions options(const std::string& name) {
  RunOptions o;
  o.out = std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
  o.no_progress = true;
  o.quiet = true;
  return o;
}

TEST(RunExit, AFilterThatSelectsNoTestIsAHarnessError) {
  RunOptions o = options("none");
  o.filter = "NO-SUCH-TEST-*";
  EXPECT_EQ(run_with(o), kExitHarnessError);
}

TEST(RunExit, TestCaseFilesAndFoldersGivenRunInsteadOfTheSuite) {
  RunOptions o = options("paths");
  o.paths = {"testcases/base/psn/RC-PSN-004.mrt", "testcases/base/psn/RC-PSN-004.mrt"};
  EXPECT_EQ(run_with(o), kExitOk);
  std::ifstream report(o.out + "/report.json");
  const std::string text((std::istreambuf_iterator<char>(report)), {});
  EXPECT_NE(text.find("RC-PSN-004"), std::string::npos);
  EXPECT_EQ(text.find("RC-PSN-001"), std::string::npos) << "only the file given runs";
}

TEST(RunExit, APathThatNamesNoTestCaseIsAHarnessError) {
  RunOptions o = options("bad-path");
  for (const std::string& path :
       {std::string("testcases/base/psn/NO-SUCH.mrt"), std::string("docs/spec/clauses.json")}) {
    o.paths = {path};
    EXPECT_EQ(run_with(o), kExitHarnessError) << path;
  }
  EXPECT_FALSE(fs::exists(o.out + "/report.json")) << "refused before any test ran";
}

// As ./metaroce runs it: from the user's folder, the project's files through METAROCE_ROOT.
TEST(RunExit, ATestFileRunsFromAnyWorkingDirectory) {
  const fs::path root = fs::current_path();
  const fs::path elsewhere = fs::path(std::getenv("TEST_TMPDIR")) / "elsewhere";
  fs::create_directories(elsewhere);
  fs::copy_file(root / "testcases/base/psn/RC-PSN-004.mrt", elsewhere / "mine.mrt",
                fs::copy_options::overwrite_existing);
  ASSERT_EQ(setenv("METAROCE_ROOT", root.c_str(), 1), 0);
  fs::current_path(elsewhere);
  EXPECT_EQ(repository_file("testcases"), (root / "testcases").string());
  RunOptions o = options("elsewhere-run");
  o.testcases = repository_file("testcases");
  o.paths = {"mine.mrt"};
  const int exit = run_with(o);
  fs::current_path(root);
  unsetenv("METAROCE_ROOT");
  EXPECT_EQ(exit, kExitOk);
  EXPECT_TRUE(fs::exists(o.out + "/captures/RC-PSN-004.pcapng"));
}

TEST(RunExit, AnOutPathThatIsAFileIsRefusedBeforeAnyTestRuns) {
  RunOptions o = options("file");
  std::ofstream(o.out) << "not a directory";
  o.filter = "RC-PSN-004";
  EXPECT_EQ(run_with(o), kExitHarnessError);
  EXPECT_TRUE(fs::is_regular_file(o.out));
}

TEST(RunExit, AnEarlierRunsCapturesAreClearedFromTheRunDirectory) {
  RunOptions o = options("again");
  fs::create_directories(o.out + "/captures");
  std::ofstream(o.out + "/captures/RC-OLD-001.pcapng") << "stale";
  o.filter = "RC-PSN-004";
  EXPECT_EQ(run_with(o), kExitOk);
  EXPECT_FALSE(fs::exists(o.out + "/captures/RC-OLD-001.pcapng"));
  EXPECT_TRUE(fs::exists(o.out + "/captures/RC-PSN-004.pcapng"));
}

TEST(RunExit, FailOnInconcTurnsAnInconclusiveRunRed) {
  // A test that posts more receive WQEs than the DUT queue holds is inconclusive (ENOSPC).
  const std::string dir = std::string(std::getenv("TEST_TMPDIR")) + "/inconc-suite/base";
  fs::create_directories(dir);
  std::ofstream(dir + "/X-1.mrt")
      << "# tp: X-1  clause: MR-AK-01\n# pics: rc.send  group: BV\n"
         "# purpose: p\n# positive-path: none\n"
         "dut qp A = create_qp(type=RC)\ndut post_recv A count=1025 len=8\n";
  RunOptions o = options("inconc");
  o.testcases = dir + "/..";
  ASSERT_EQ(run_with(o), kExitOk) << "without --fail-on an inconclusive run exits 0";
  o.fail_on = "inconc";
  EXPECT_EQ(run_with(o), kExitFailed);
  o.fail_on = "sometimes";
  EXPECT_EQ(run_with(o), kExitHarnessError);
}

TEST(RunExit, ARunOnAMutatedReferenceSaysSoInEveryReport) {
  RunOptions o = options("mutant");
  o.filter = "RC-CQ-011";
  o.mutants = {"receive-wqe-lost-on-error"};
  ::testing::internal::CaptureStdout();
  EXPECT_EQ(run_with(o), kExitFailed);
  const std::string console = ::testing::internal::GetCapturedStdout();
  // The failure names the clauses RC-CQ-011 checks, with their titles from the catalog.
  EXPECT_NE(console.find(" (clauses MR-CQ-06: "), std::string::npos) << console;
  EXPECT_NE(console.find("; MR-MP-08: "), std::string::npos) << console;
  auto slurp = [](const std::string& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  const std::string manifest = slurp(o.out + "/manifest.json");
  EXPECT_NE(manifest.find("\"mutants\": [\n    \"receive-wqe-lost-on-error\""), std::string::npos)
      << manifest.substr(0, 400);
  EXPECT_NE(slurp(o.out + "/report.json").find("receive-wqe-lost-on-error"), std::string::npos);
  EXPECT_NE(slurp(o.out + "/index.html").find("class=\"mutant-banner\""), std::string::npos);
  EXPECT_NE(slurp(o.out + "/summary.md").find("**Mutated reference (receive-wqe-lost-on-error)"),
            std::string::npos);
  // junit.xml: on its one suite (base/cq), the mutant and every option of the run.
  const std::string junit = slurp(o.out + "/junit.xml");
  EXPECT_NE(junit.find("<property name=\"mutant\" value=\"receive-wqe-lost-on-error\"/>"),
            std::string::npos)
      << junit;
  EXPECT_NE(junit.find("<property name=\"option.filter\" value=\"RC-CQ-011\"/>"), std::string::npos)
      << junit;
  EXPECT_NE(junit.find("<property name=\"option.mutants\" value=\"receive-wqe-lost-on-error\"/>"),
            std::string::npos)
      << junit;
  EXPECT_NE(junit.find("<property name=\"option.dut\" value=\"reference\"/>"), std::string::npos)
      << junit;
}

// report.json's failure record and summary.md name the clauses a failure is against.
TEST(RunExit, AFailureNamesItsClausesInTheReports) {
  RunOptions o = options("clauses");
  o.filter = "RC-CQ-011";
  o.mutants = {"receive-wqe-lost-on-error"};
  ASSERT_EQ(run_with(o), kExitFailed);
  std::ifstream in(o.out + "/report.json");
  const auto report = nlohmann::json::parse(in);
  ASSERT_EQ(report["tests"].size(), 1u);
  const auto& failures = report["tests"][0]["failures"];
  ASSERT_FALSE(failures.empty());
  for (const auto& f : failures) {
    // A script line's failure is against the test's clauses; a trace checker's, its own.
    if (f["field"].get<std::string>().starts_with("trace ")) {
      EXPECT_EQ(f["clauses"].size(), 1u) << f.dump();
    } else {
      EXPECT_EQ(f["clauses"], nlohmann::json::array({"MR-CQ-06", "MR-MP-08"})) << f.dump();
    }
  }
  std::ifstream md(o.out + "/summary.md");
  const std::string summary(std::istreambuf_iterator<char>(md), {});
  EXPECT_NE(summary.find("(clauses MR-CQ-06: "), std::string::npos) << summary;
}

// Tests build without --stamp: the manifest (and report.json) give the commit of the checkout
// the run finds (GIT_DIR names one at a commit of its own here), and say it is that, not the
// commit the harness was built from (a stamped build's: repository_file_test).
TEST(RunExit, AnUnstampedBuildsReportsSayTheirCommitIsTheCheckoutsAtRunTime) {
  if (!build_commit().empty()) GTEST_SKIP() << "built with --stamp";
  const fs::path repo = fs::path(std::getenv("TEST_TMPDIR")) / "moved-checkout";
  fs::create_directories(repo);
  std::ofstream(repo / "file") << "one\n";
  const std::string git = "git -C '" + repo.string() + "' ";
  const std::string head_file = repo.string() + "-head.txt";
  ASSERT_EQ(std::system((git + "init -q && " + git + "add -A && " + git +
                         "-c user.name=t -c user.email=t@example.com commit -qm one && " + git +
                         "rev-parse HEAD > '" + head_file + "'")
                            .c_str()),
            0);
  std::string head;
  std::getline(std::ifstream(head_file), head);
  ASSERT_EQ(head.size(), 40u);
  ASSERT_EQ(setenv("GIT_DIR", (repo / ".git").c_str(), 1), 0);
  ASSERT_EQ(setenv("GIT_WORK_TREE", repo.c_str(), 1), 0);
  RunOptions o = options("unstamped");
  o.filter = "RC-PSN-004";
  const int exit = run_with(o);
  unsetenv("GIT_DIR");
  unsetenv("GIT_WORK_TREE");
  ASSERT_EQ(exit, kExitOk);
  for (const std::string file : {"manifest.json", "report.json"}) {
    std::ifstream in(o.out + "/" + file);
    const auto j = nlohmann::json::parse(in);
    EXPECT_EQ(j["harness_commit"], head) << file;
    EXPECT_EQ(j.value("harness_commit_source", ""), "checkout at run time (unstamped build)")
        << file;
  }
}

}  // namespace
}  // namespace mr::cli
