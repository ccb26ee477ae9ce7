// File: veth_bulk_cell.h
//
// The cells of the veth bulk matrix (veth_bulk_matrix_test.cpp): one opcode, message length,
// path MTU and wire fault each, what a cell expects to complete, the bytes it puts in memory,
// and the sets of cells the test runs: the full cross product and the subset CI runs, which
// still meets every size, MTU, opcode and fault at least once.
//
//   for (const VethBulkCell& cell : cells_from_environment().cells) run(cell);
//   // cell.name(): "SEND/0B/mtu256/none"
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "reference/io/impairment.h"
#include "reference/transport/work_request.h"

namespace mr::io {

enum class Fault : uint8_t { kNone, kDrop, kReorder, kDuplicate, kCorrupt, kMixed };

const char* fault_name(Fault f);

// The random rates of a fault, scaled so that a message meets at most ~8 random faults:
// recovery is go-back-N, and a lost READ response costs a timeout and the whole rest of the
// response again, so at 1% a 16 MiB READ at MTU 256 (65,536 responses) would need some
// p n^2 / 2 = 21 million of them.
ImpairmentProbabilities rates(Fault f, uint32_t packets);

// The fault a cell forces on the first frame of its QP that each side receives, so that a
// one-packet message meets it too (nullopt for kNone).
std::optional<ImpairmentAction> forced_action(Fault f);

bool is_atomic(transport::SendOpcode op);

struct VethBulkCell {
  transport::SendOpcode op = transport::SendOpcode::kSend;
  uint32_t length = 0;
  uint32_t mtu = 1024;
  Fault fault = Fault::kNone;

  std::string name() const;
  uint32_t packets() const { return length == 0 || is_atomic(op) ? 1 : (length + mtu - 1) / mtu; }
  // Whether the responder consumes a posted receive (and so completes one).
  bool receives() const;
  // The opcode of the requester's completion.
  transport::WcOpcode requester_opcode() const;
};

// What a cell puts in memory before its request, drawn from the cell's seed. A's source and
// B's target differ, and READ's destination is overwritten first, so that only the transfer
// can make them match.
struct VethBulkCellData {
  std::vector<uint8_t> source;            // A: what SEND and WRITE send
  std::vector<uint8_t> target_before;     // B: the target, what READ fetches
  std::vector<uint8_t> read_destination;  // A: where READ lands
  uint64_t operand = 0;                   // B: the atomic's target value
};

VethBulkCellData cell_data(const VethBulkCell& cell, uint64_t cell_seed);

// Every fault x MTU x opcode, each bulk opcode at every size: 1,260 cells.
std::vector<VethBulkCell> full_matrix();
// The CI subset: a diagonal through the matrix and a few atomics and READs (see the .cpp).
std::vector<VethBulkCell> ci_matrix();

// The cells a run takes: the CI subset, or with METAROCE_VETH_MATRIX=full the cross
// product; METAROCE_VETH_CELL=TEXT keeps the cells whose name contains TEXT (to replay one).
struct VethBulkSelection {
  std::vector<VethBulkCell> cells;
  bool full = false;
  bool filtered = false;
};

VethBulkSelection cells_from_environment();

}  // namespace mr::io
