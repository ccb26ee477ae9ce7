// The matrix runner end to end without a guest: the "DUT" is a second reference device
// behind the DUT control protocol (dispatcher, in-process transport), the two joined by an
// in-memory link on the real clock, the harness's impairments in between. Every quick cell
// passes, also under loss and reordering; a mutant in the reference makes its cell fail.
#include <gtest/gtest.h>

#include <filesystem>

#include "harness/agent/data_path_thread.h"
#include "harness/agent/reference_backend.h"
#include "harness/agent/request_dispatcher.h"
#include "harness/dut/in_process_transport.h"
#include "harness/interop/matrix_report.h"
#include "harness/interop/matrix_runner.h"
#include "reference/io/clock.h"
#include "reference/io/memory_link.h"

namespace mr::interop {
namespace {

namespace fs = std::filesystem;

const Identity kReference{.mac = {{0x02, 0, 0, 0, 0, 0x01}}, .ip = {{198, 18, 0, 1}}};
const Identity kDut{.mac = {{0x52, 0x54, 0, 0x12, 0x34, 0x56}}, .ip = {{198, 18, 0, 2}}};

class ReferencePair : public ::testing::Test {
 protected:
  ReferencePair()
      : pair_(clock_, {.latency_ns = 20'000}),
        dut_(pair_.b(), clock_, {.mac = kDut.mac, .ipv4 = kDut.ip, .seed = 99}),
        pump_(dut_),
        dispatcher_(dut_, "reference"),
        control_(std::make_unique<dut::InProcessTransport>(dispatcher_)),
        out_(fs::path(::testing::TempDir()) / "interop") {}

  MatrixResult run(const MatrixOptions& options) {
    MatrixEnvironment env{.wire = pair_.a(),
                          .control = control_,
                          .reference_id = kReference,
                          .dut_id = kDut,
                          .dut_name = "rxe",
                          .dut_description = "a second reference device"};
    auto r = run_matrix(env, options);
    EXPECT_TRUE(r) << r.error();
    return r ? *r : MatrixResult{};
  }

  io::SystemClock clock_;
  io::MemoryLinkPair pair_;
  agent::ReferenceBackend dut_;
  agent::DataPathThread pump_;
  agent::RequestDispatcher dispatcher_;
  dut::DutControl control_;
  std::string out_;
};

TEST_F(ReferencePair, EveryQuickCellPassesAndIsCapturedAndAnalyzed) {
  const MatrixResult r = run({.out_dir = out_, .seed = 5, .quick = true});
  ASSERT_EQ(r.cells.size(), matrix_cells(true).size());
  uint64_t faults = 0;
  for (const auto& c : r.cells) {
    EXPECT_TRUE(c.passed()) << cell_line(c);
    ASSERT_TRUE(c.analysis) << c.analysis_error;
    EXPECT_GT(c.analysis->roce_frames, 0U) << c.cell.name();
    EXPECT_TRUE(fs::exists(fs::path(out_) / c.capture)) << c.capture;
    faults += c.impairments.size();
  }
  EXPECT_GT(faults, 0U);  // the harness did drop and reorder something
  ASSERT_TRUE(write_matrix_report(r, out_));
  EXPECT_TRUE(fs::exists(fs::path(out_) / "matrix.md"));
}

TEST_F(ReferencePair, BrokenReferenceFailsItsCell) {
  const MatrixResult r = run({.out_dir = out_,
                              .seed = 5,
                              .quick = true,
                              .filter = "rxe-ref/FETCH_ADD",
                              .mutants = {"fetch-add-returns-new-value"}});
  ASSERT_EQ(r.cells.size(), 1U);
  EXPECT_FALSE(r.cells[0].passed());
  EXPECT_NE(cell_line(r.cells[0]).find("returned original value"), std::string::npos)
      << cell_line(r.cells[0]);
}

TEST_F(ReferencePair, UnknownMutantIsAnError) {
  MatrixEnvironment env{
      .wire = pair_.a(), .control = control_, .reference_id = kReference, .dut_id = kDut};
  auto r = run_matrix(env, {.out_dir = out_, .mutants = {"no-such-mutant"}});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("no-such-mutant"), std::string::npos);
}

}  // namespace
}  // namespace mr::interop
