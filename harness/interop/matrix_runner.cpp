#include "harness/interop/matrix_runner.h"

#include <chrono>
#include <filesystem>

#include "harness/interop/agent_peer.h"
#include "harness/interop/reference_side.h"
#include "harness/peer/data_pattern.h"
#include "reference/io/clock.h"
#include "reference/io/recording_link.h"

namespace mr::interop {
using peer::pattern_u64;
namespace {

namespace fs = std::filesystem;

uint64_t steady_ns() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

// Frames still arriving for the previous cell (late retransmissions) stay out of the next.
void drain(io::Link& link) {
  std::vector<io::Frame> burst(64);
  for (int i = 0; i < 1000 && link.receive_burst(burst, 0) > 0; ++i) {
  }
}

io::ImpairmentProbabilities probabilities(Impairment i) {
  switch (i) {
    case Impairment::kNone:
      return {};
    case Impairment::kLoss:
      return {.drop = impairment_rate(i)};
    case Impairment::kReorder:
      return {.reorder = impairment_rate(i)};
  }
  return {};
}

Expected<mutants::MutantSet, std::string> mutant_set(const std::vector<std::string>& names) {
  mutants::MutantSet set;
  for (const auto& name : names) {
    auto m = mutants::mutant_by_name(name);
    if (!m) return Unexpected("unknown mutant " + name + " (metaroce mutants --list)");
    set.enable(*m);
  }
  return set;
}

CellResult run_one(const MatrixEnvironment& env, const MatrixOptions& options,
                   const mutants::MutantSet& mutants, const Cell& cell) {
  const uint64_t start = steady_ns();
  CellResult r;
  r.cell = cell;
  r.seed = cell_seed(options.seed, cell);
  r.capture = capture_name(cell);
  drain(env.wire);
  // The capture sits between the two impairments, so it holds what each side really sent:
  // the reference's frames before the harness drops or reorders them on their way out,
  // the DUT's before it does so on their way in. Each sender is judged on its own stream;
  // the impairment log says what the receiver missed.
  io::SystemClock clock;
  const io::ImpairmentProbabilities p = probabilities(cell.impairment);
  io::ImpairedLink outgoing(env.wire, clock, io::ImpairmentPolicy(r.seed ^ 1, p),
                            io::ImpairmentPolicy(0));
  // Comments say who sent each frame; neither is a tester comment, so the analyzer judges
  // both sides.
  auto capture = io::RecordingLink::create((fs::path(options.out_dir) / r.capture).string(),
                                           {.application = "metaroce interop (issue #7)",
                                            .sent = "reference->" + env.dut_name,
                                            .received = env.dut_name + "->reference",
                                            .sent_comment = "reference",
                                            .received_comment = env.dut_name},
                                           &outgoing);
  if (!capture) {
    r.outcome.failures.push_back("capture: " + capture.error());
    return r;
  }
  io::ImpairedLink incoming(**capture, clock, io::ImpairmentPolicy(0),
                            io::ImpairmentPolicy(r.seed ^ 2, p));
  {
    ReferenceSide reference(incoming, {.mac = env.reference_id.mac,
                                       .ip = env.reference_id.ip,
                                       .ip6 = std::nullopt,
                                       .seed = r.seed,
                                       .mutants = mutants});
    AgentPeer dut(env.control, env.dut_name);
    const CellSides sides{.reference = reference,
                          .dut = dut,
                          .reference_id = env.reference_id,
                          .dut_id = env.dut_id,
                          .dut_name = env.dut_name};
    r.outcome = run_cell(cell, sides, r.seed);
  }  // the reference's data path stops here, before the capture closes
  r.sent = outgoing.counters(io::LinkDirection::kSend);
  r.received = incoming.counters(io::LinkDirection::kReceive);
  r.impairments = outgoing.events();
  for (const auto& e : incoming.events()) r.impairments.push_back(e);
  if (auto stopped = (*capture)->close(); !stopped) {
    r.analysis_error = "capture: " + stopped.error();
  } else if (auto a = analyze_cell_capture((fs::path(options.out_dir) / r.capture).string()); a) {
    r.analysis = std::move(*a);
  } else {
    r.analysis_error = a.error();
  }
  r.wall_ns = steady_ns() - start;
  return r;
}

}  // namespace

size_t MatrixResult::passed() const {
  size_t n = 0;
  for (const auto& c : cells) n += c.passed() ? 1 : 0;
  return n;
}

uint64_t cell_seed(uint64_t run_seed, const Cell& cell) {
  uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a of the name
  for (const char ch : cell.name()) h = (h ^ static_cast<uint8_t>(ch)) * 0x100000001b3ULL;
  return pattern_u64(run_seed ^ h, 0);
}

std::string capture_name(const Cell& cell) {
  std::string name = cell.name();
  for (char& ch : name) {
    if (ch == '/') ch = '_';
  }
  return "cells/" + name + ".pcapng";
}

Expected<MatrixResult, std::string> run_matrix(const MatrixEnvironment& env,
                                               const MatrixOptions& options) {
  auto mutants = mutant_set(options.mutants);
  if (!mutants) return Unexpected(mutants.error());
  std::error_code ec;
  fs::create_directories(fs::path(options.out_dir) / "cells", ec);
  if (ec) return Unexpected(options.out_dir + "/cells: " + ec.message());

  MatrixResult result;
  result.dut_name = env.dut_name;
  result.dut_description = env.dut_description;
  result.seed = options.seed;
  result.quick = options.quick;
  result.mutants = options.mutants;
  std::vector<Cell> cells;
  for (const Cell& c : matrix_cells(options.quick)) {
    if (options.filter.empty() || c.name().find(options.filter) != std::string::npos) {
      cells.push_back(c);
    }
  }
  const uint64_t start = steady_ns();
  for (size_t i = 0; i < cells.size(); ++i) {
    result.cells.push_back(run_one(env, options, *mutants, cells[i]));
    if (options.on_cell) options.on_cell(result.cells.back(), i, cells.size());
  }
  result.wall_ns = steady_ns() - start;
  return result;
}

}  // namespace mr::interop
