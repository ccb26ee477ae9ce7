// File: matrix_runner.h
//
// Runs the interop matrix over one DUT (issue #7): for each cell, a fresh reference device
// on the DUT-facing link behind the harness's seeded impairment (ImpairedLink, both
// directions), the DUT's side through its agent (AgentPeer), the cell run and judged on
// both sides (cell_runner.h), its traffic captured to a pcapng of its own (io::RecordingLink)
// and analyzed (cell_analysis.h). The environment (a booted rxe guest, or two reference
// devices in memory for tests) is the caller's.
//
//   MatrixEnvironment env{.wire = pcap, .control = control, ...};
//   auto result = run_matrix(env, {.out_dir = "reports/interop", .seed = 1, .quick = true});
//   write_matrix_report(*result, "reports/interop");
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "harness/dut/dut_control.h"
#include "harness/interop/cell.h"
#include "harness/interop/cell_analysis.h"
#include "harness/interop/cell_runner.h"
#include "reference/io/impaired_link.h"
#include "reference/io/link.h"
#include "reference/mutants/mutant.h"

namespace mr::interop {

struct MatrixEnvironment {
  io::Link& wire;  // the reference's raw link facing the DUT
  dut::DutControl& control;
  Identity reference_id;
  Identity dut_id;
  std::string dut_name = "rxe";
  std::string dut_description;  // "Linux 6.1.0-... rdma_rxe in QEMU (TCG), verbs agent"
};

struct CellResult {
  Cell cell;
  uint64_t seed = 0;  // the cell's: PSNs, data, atomics, impairment (send: seed^1, receive: seed^2)
  CellOutcome outcome;
  std::string capture;  // the pcapng, relative to the output directory
  std::optional<CellAnalysis> analysis;
  std::string analysis_error;
  io::ImpairmentCounters sent;      // frames the reference sent, and what the harness did
  io::ImpairmentCounters received;  // frames the DUT sent
  std::vector<io::ImpairmentEvent> impairments;
  uint64_t wall_ns = 0;  // the whole cell, set-up and checks included
  bool passed() const { return outcome.passed(); }
};

struct MatrixOptions {
  std::string out_dir;  // cells/*.pcapng go here
  uint64_t seed = 1;
  bool quick = false;
  std::string filter;                // only cells whose name contains it ("" = all)
  std::vector<std::string> mutants;  // the reference's, by name (proof that a cell can fail)
  std::function<void(const CellResult&, size_t index, size_t count)> on_cell;  // progress
};

struct MatrixResult {
  std::string dut_name;
  std::string dut_description;
  uint64_t seed = 0;
  bool quick = false;
  std::vector<std::string> mutants;
  std::vector<CellResult> cells;
  uint64_t wall_ns = 0;
  size_t passed() const;
};

// A cell's seed: the run's seed and the cell's name, so a cell has the same seed in the
// quick and the full matrix.
uint64_t cell_seed(uint64_t run_seed, const Cell& cell);
// "ref-rxe/WRITE/4096/mtu1024/loss" -> "cells/ref-rxe_WRITE_4096_mtu1024_loss.pcapng"
std::string capture_name(const Cell& cell);

// An error only when the matrix cannot run at all (a bad mutant name, no output
// directory); failing cells are in the result.
Expected<MatrixResult, std::string> run_matrix(const MatrixEnvironment& env,
                                               const MatrixOptions& options);

}  // namespace mr::interop
