#include "harness/cli/repository_file.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace mr::cli {
namespace {

namespace fs = std::filesystem;

// A checkout of its own: the two files that make a folder the repository, in one commit.
fs::path make_checkout(const std::string& name) {
  fs::path root = fs::path(std::getenv("TEST_TMPDIR")) / name;
  fs::create_directories(root / "docs/spec");
  fs::create_directories(root / "testcases");
  std::ofstream(root / "docs/spec/clauses.json") << "{}\n";
  std::ofstream(root / "testcases/README") << "suite\n";
  const std::string git = "git -C '" + root.string() + "' ";
  EXPECT_EQ(std::system((git + "init -q && " + git + "add -A && " + git +
                         "-c user.name=t -c user.email=t@example.com commit -qm one")
                            .c_str()),
            0);
  return root;
}

std::string head_of(const fs::path& root) {
  const std::string file = root.string() + "/../head.txt";
  EXPECT_EQ(std::system(("git -C '" + root.string() + "' rev-parse HEAD > " + file).c_str()), 0);
  std::string line;
  std::getline(std::ifstream(file), line);
  return line;
}

TEST(RepositoryFile, TheProjectsFilesAreFoundThroughMetaroceRootFromAnotherFolder) {
  const fs::path root = make_checkout("root-a");
  ASSERT_EQ(setenv("METAROCE_ROOT", root.c_str(), 1), 0);
  EXPECT_EQ(repository_file("testcases/pixit/x.json"), (root / "testcases/pixit/x.json").string());
  unsetenv("METAROCE_ROOT");
}

TEST(RepositoryFile, TheCommitIsTheCheckoutsHeadAndSaysDirtyWhenATrackedFileChanged) {
  const fs::path root = make_checkout("root-b");
  ASSERT_EQ(setenv("METAROCE_ROOT", root.c_str(), 1), 0);
  const std::string head = head_of(root);
  ASSERT_EQ(head.size(), 40u);
  EXPECT_EQ(repository_commit(), head);
  std::ofstream(root / "testcases/README") << "changed\n";
  EXPECT_EQ(repository_commit(), head + "-dirty");
  unsetenv("METAROCE_ROOT");
}

TEST(RepositoryFile, NoCheckoutGivesNoCommit) {
  const fs::path root = fs::path(std::getenv("TEST_TMPDIR")) / "not-git";
  fs::create_directories(root / "docs/spec");
  fs::create_directories(root / "testcases");
  std::ofstream(root / "docs/spec/clauses.json") << "{}\n";
  ASSERT_EQ(setenv("METAROCE_ROOT", root.c_str(), 1), 0);
  // GIT_CEILING_DIRECTORIES keeps git from finding a checkout above TEST_TMPDIR.
  ASSERT_EQ(setenv("GIT_CEILING_DIRECTORIES", std::getenv("TEST_TMPDIR"), 1), 0);
  EXPECT_EQ(repository_commit(), "");
  unsetenv("METAROCE_ROOT");
}

// A binary built at X (its stamp) and run in a checkout since moved to Y says X.
TEST(HarnessCommit, AStampedBuildGivesTheCommitItWasBuiltFromWhereverTheCheckoutMoved) {
  const fs::path root = make_checkout("root-stamped");
  ASSERT_EQ(setenv("METAROCE_ROOT", root.c_str(), 1), 0);
  const std::string built = "0123456789abcdef0123456789abcdef01234567";
  ASSERT_NE(head_of(root), built);
  const HarnessCommit c = harness_commit(built);
  EXPECT_EQ(c.commit, built);
  EXPECT_EQ(c.source, kCommitOfTheBuild);
  unsetenv("METAROCE_ROOT");
}

TEST(HarnessCommit, AnUnstampedBuildGivesTheCheckoutsCommitAtRunTimeAndSaysSo) {
  const fs::path root = make_checkout("root-unstamped");
  ASSERT_EQ(setenv("METAROCE_ROOT", root.c_str(), 1), 0);
  const HarnessCommit c = harness_commit("");
  EXPECT_EQ(c.commit, head_of(root));
  EXPECT_EQ(c.source, "checkout at run time (unstamped build)");
  unsetenv("METAROCE_ROOT");
}

TEST(HarnessCommit, AnUnstampedBuildOutsideACheckoutSaysItsCommitIsUnknown) {
  const fs::path root = fs::path(std::getenv("TEST_TMPDIR")) / "not-git-either";
  fs::create_directories(root / "docs/spec");
  fs::create_directories(root / "testcases");
  std::ofstream(root / "docs/spec/clauses.json") << "{}\n";
  ASSERT_EQ(setenv("METAROCE_ROOT", root.c_str(), 1), 0);
  ASSERT_EQ(setenv("GIT_CEILING_DIRECTORIES", std::getenv("TEST_TMPDIR"), 1), 0);
  const HarnessCommit c = harness_commit("");
  EXPECT_EQ(c.commit, "");
  EXPECT_EQ(c.source, "unknown (unstamped build)");
  unsetenv("METAROCE_ROOT");
  unsetenv("GIT_CEILING_DIRECTORIES");
}

}  // namespace
}  // namespace mr::cli
