// The quick interop matrix against Linux rxe in the QEMU guest: every cell must pass, in
// both directions, under the harness's loss and reordering. Then a reference broken on
// purpose (the mutant fetch-add-returns-new-value) must make its cell fail, proof that
// the matrix can fail. One guest for both. Needs root, /dev/net/tun and
// qemu-system-x86_64; skips otherwise.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "harness/interop/matrix_report.h"
#include "harness/interop/matrix_runner.h"
#include "harness/interop/rxe_environment.h"
#include "reference/io/command.h"
#include "reference/io/network_namespace.h"

namespace mr::interop {
namespace {

namespace fs = std::filesystem;

std::optional<std::string> skip_reason() {
  if (geteuid() != 0) return "needs root for network namespaces and a tap device";
  if (!fs::exists("/dev/net/tun")) return "no /dev/net/tun";
  if (!io::run_command({"qemu-system-x86_64", "--version"})) {
    return "no qemu-system-x86_64 (package qemu-system-x86)";
  }
  return std::nullopt;
}

std::string metaroce_binary() {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  return std::string(srcdir != nullptr ? srcdir : ".") + "/metaroce/harness/cli/metaroce";
}

std::string out_dir(const std::string& name) {
  const char* undeclared = std::getenv("TEST_UNDECLARED_OUTPUTS_DIR");
  return (fs::path(undeclared != nullptr ? undeclared : ::testing::TempDir()) / name).string();
}

class RxeMatrix : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (skip_reason()) return;
    auto env = RxeEnvironment::start({.metaroce_binary = metaroce_binary(), .seed = 1});
    if (env) {
      env_ = std::move(*env);
    } else {
      boot_error_ = new std::string(env.error());
    }
  }
  static void TearDownTestSuite() {
    env_.reset();  // QEMU, tap and namespace go here
    delete boot_error_;
    boot_error_ = nullptr;
  }
  void SetUp() override {
    if (auto why = skip_reason()) GTEST_SKIP() << *why;
    ASSERT_NE(env_, nullptr) << *boot_error_;
  }

  static std::unique_ptr<RxeEnvironment> env_;
  static std::string* boot_error_;
};

std::unique_ptr<RxeEnvironment> RxeMatrix::env_;
std::string* RxeMatrix::boot_error_ = nullptr;

TEST_F(RxeMatrix, EveryQuickCellPassesInBothDirections) {
  const std::string out = out_dir("interop-quick");
  auto r =
      run_matrix(env_->matrix_environment(), {.out_dir = out,
                                              .seed = 1,
                                              .quick = true,
                                              .on_cell = [](const CellResult& c, size_t, size_t) {
                                                std::printf("%s\n", cell_line(c).c_str());
                                              }});
  ASSERT_TRUE(r) << r.error();
  ASSERT_EQ(r->cells.size(), matrix_cells(true).size());
  for (const auto& c : r->cells) {
    EXPECT_TRUE(c.passed()) << cell_line(c) << "\n  capture: " << out << "/" << c.capture;
    ASSERT_TRUE(c.analysis) << c.analysis_error;
    EXPECT_GT(c.analysis->roce_frames, 0U) << c.cell.name();
  }
  EXPECT_TRUE(write_matrix_report(*r, out));
}

TEST_F(RxeMatrix, BrokenReferenceMakesItsCellFail) {
  // As responder, the broken reference answers FETCH_ADD with the new value: rxe's
  // requester then lands the wrong "original" value.
  auto r = run_matrix(env_->matrix_environment(), {.out_dir = out_dir("interop-mutant"),
                                                   .seed = 1,
                                                   .quick = true,
                                                   .filter = "rxe-ref/FETCH_ADD",
                                                   .mutants = {"fetch-add-returns-new-value"}});
  ASSERT_TRUE(r) << r.error();
  ASSERT_EQ(r->cells.size(), 1U);
  EXPECT_FALSE(r->cells[0].passed());
  EXPECT_NE(cell_line(r->cells[0]).find("returned original value"), std::string::npos)
      << cell_line(r->cells[0]);
}

TEST(RxeMatrixCleanup, NothingIsLeftBehind) {
  if (auto why = skip_reason()) GTEST_SKIP() << *why;
  EXPECT_TRUE(io::no_namespaces_left_by_this_process());
}

}  // namespace
}  // namespace mr::interop
