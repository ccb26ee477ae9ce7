#include "reference/io/veth_bulk_cell.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <sstream>

namespace mr::io {
namespace {

using transport::SendOpcode;
using transport::WcOpcode;

const std::vector<uint32_t> kSizes = {0, 1, 4095, 4096, 4097, 65536, 1 << 20, 16 << 20};
const std::vector<uint32_t> kMtus = {256, 512, 1024, 2048, 4096};
const std::vector<SendOpcode> kBulkOps = {SendOpcode::kSend, SendOpcode::kSendWithImm,
                                          SendOpcode::kWrite, SendOpcode::kWriteWithImm,
                                          SendOpcode::kRead};
const std::vector<Fault> kFaults = {Fault::kNone,      Fault::kDrop,    Fault::kReorder,
                                    Fault::kDuplicate, Fault::kCorrupt, Fault::kMixed};

ImpairmentProbabilities base_rates(Fault f) {
  switch (f) {
    case Fault::kNone:
      return {};
    case Fault::kDrop:
      return {.drop = 0.01};
    case Fault::kReorder:
      return {.reorder = 0.01};
    case Fault::kDuplicate:
      return {.duplicate = 0.01};
    case Fault::kCorrupt:
      return {.corrupt = 0.01};
    case Fault::kMixed:
      return {
          .drop = 0.005, .duplicate = 0.005, .reorder = 0.005, .delay = 0.005, .corrupt = 0.005};
  }
  return {};
}

uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::vector<uint8_t> pattern(size_t n, uint64_t seed) {
  std::vector<uint8_t> v((n + 7) & ~size_t{7});
  uint64_t state = seed;
  for (size_t i = 0; i < v.size(); i += 8) {
    const uint64_t x = splitmix64(state);
    std::memcpy(v.data() + i, &x, 8);
  }
  v.resize(n);
  return v;
}

}  // namespace

const char* fault_name(Fault f) {
  switch (f) {
    case Fault::kNone:
      return "none";
    case Fault::kDrop:
      return "drop";
    case Fault::kReorder:
      return "reorder";
    case Fault::kDuplicate:
      return "duplicate";
    case Fault::kCorrupt:
      return "corrupt";
    case Fault::kMixed:
      return "mixed";
  }
  return "?";
}

ImpairmentProbabilities rates(Fault f, uint32_t packets) {
  ImpairmentProbabilities p = base_rates(f);
  const double scale = std::min(1.0, 800.0 / packets);
  for (double* r : {&p.drop, &p.duplicate, &p.reorder, &p.delay, &p.corrupt}) *r *= scale;
  return p;
}

std::optional<ImpairmentAction> forced_action(Fault f) {
  switch (f) {
    case Fault::kNone:
      return std::nullopt;
    case Fault::kDrop:
    case Fault::kMixed:
      return ImpairmentAction::kDrop;
    case Fault::kReorder:
      return ImpairmentAction::kReorder;
    case Fault::kDuplicate:
      return ImpairmentAction::kDuplicate;
    case Fault::kCorrupt:
      return ImpairmentAction::kCorrupt;
  }
  return std::nullopt;
}

bool is_atomic(SendOpcode op) {
  return op == SendOpcode::kCompareSwap || op == SendOpcode::kFetchAdd;
}

std::string VethBulkCell::name() const {
  std::ostringstream s;
  s << transport::to_string(op) << "/" << length << "B/mtu" << mtu << "/" << fault_name(fault);
  return s.str();
}

bool VethBulkCell::receives() const {
  return op == SendOpcode::kSend || op == SendOpcode::kSendWithImm ||
         op == SendOpcode::kWriteWithImm;
}

WcOpcode VethBulkCell::requester_opcode() const {
  switch (op) {
    case SendOpcode::kRead:
      return WcOpcode::kRdmaRead;
    case SendOpcode::kCompareSwap:
      return WcOpcode::kCompareSwap;
    case SendOpcode::kFetchAdd:
      return WcOpcode::kFetchAdd;
    case SendOpcode::kWrite:
    case SendOpcode::kWriteWithImm:
      return WcOpcode::kRdmaWrite;
    case SendOpcode::kSend:
    case SendOpcode::kSendWithImm:
    case SendOpcode::kSendWithInv:
      return WcOpcode::kSend;
  }
  return WcOpcode::kSend;
}

std::vector<VethBulkCell> full_matrix() {
  std::vector<VethBulkCell> cells;
  for (Fault f : kFaults) {
    for (uint32_t mtu : kMtus) {
      for (SendOpcode op : kBulkOps) {
        for (uint32_t len : kSizes) cells.push_back({op, len, mtu, f});
      }
      for (SendOpcode op : {SendOpcode::kCompareSwap, SendOpcode::kFetchAdd})
        cells.push_back({op, 8, mtu, f});
    }
  }
  return cells;
}

// A diagonal through the matrix: cell i takes size i, MTU i mod 5, opcode i mod 5 and
// fault i mod 6, so eight cells cover every size, MTU, bulk opcode and fault; the atomics
// meet duplication (the replay cache), loss and corruption; a 1 MiB READ adds a response
// stream under every fault at once (lost READ responses are recovered by the timer only,
// one timeout per gap, so a 16 MiB READ under faults is left to the full run).
std::vector<VethBulkCell> ci_matrix() {
  std::vector<VethBulkCell> cells;
  for (size_t i = 0; i < kSizes.size(); ++i) {
    cells.push_back({kBulkOps[i % kBulkOps.size()], kSizes[i], kMtus[i % kMtus.size()],
                     kFaults[i % kFaults.size()]});
  }
  cells.push_back({SendOpcode::kCompareSwap, 8, 1024, Fault::kDuplicate});
  cells.push_back({SendOpcode::kCompareSwap, 8, 256, Fault::kDrop});
  cells.push_back({SendOpcode::kFetchAdd, 8, 2048, Fault::kDuplicate});
  cells.push_back({SendOpcode::kFetchAdd, 8, 4096, Fault::kCorrupt});
  cells.push_back({SendOpcode::kRead, 1 << 20, 4096, Fault::kMixed});
  return cells;
}

VethBulkCellData cell_data(const VethBulkCell& cell, uint64_t cell_seed) {
  VethBulkCellData d;
  d.source = pattern(cell.length, cell_seed);
  d.target_before = pattern(cell.length, ~cell_seed);
  d.read_destination = pattern(cell.length, cell_seed + 7);
  uint64_t operand_state = cell_seed;
  d.operand = splitmix64(operand_state) >> 8;
  return d;
}

VethBulkSelection cells_from_environment() {
  VethBulkSelection s;
  const char* mode = std::getenv("METAROCE_VETH_MATRIX");
  s.full = mode != nullptr && std::string(mode) == "full";
  s.cells = s.full ? full_matrix() : ci_matrix();
  const char* only = std::getenv("METAROCE_VETH_CELL");
  s.filtered = only != nullptr && *only != '\0';
  if (s.filtered) {
    std::erase_if(s.cells, [only](const VethBulkCell& c) {
      return c.name().find(only) == std::string::npos;
    });
  }
  return s;
}

}  // namespace mr::io
