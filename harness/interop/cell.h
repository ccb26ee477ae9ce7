// File: cell.h
//
// One cell of the interop matrix (issue #7): which side is the requester, which operation,
// how many bytes, which path MTU, and what the harness in the middle does to the frames.
// The matrix is every combination of these (matrix_cells(false)), or a representative
// subset of about twenty for CI (matrix_cells(true)).
//
//   for (const Cell& c : matrix_cells(quick)) run(c);   // c.name():
//   "ref-rxe/WRITE/4096/mtu1024/loss"
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mr::interop {

// Who posts the operation: the reference (its requester against the DUT's responder) or
// the DUT (the DUT's requester against the reference's responder).
enum class Direction : uint8_t { kReferenceToDut, kDutToReference };
enum class Operation : uint8_t { kSend, kWrite, kRead, kFetchAdd, kCompareSwap };
enum class Impairment : uint8_t { kNone, kLoss, kReorder };

std::string_view direction_name(Direction d);  // "ref-rxe", "rxe-ref" (dut_name() replaces rxe)
std::string_view operation_name(
    Operation o);  // "SEND", "WRITE", "READ", "FETCH_ADD", "COMPARE_SWAP"
std::string_view impairment_name(Impairment i);  // "none", "loss", "reorder"
bool is_atomic(Operation o);

inline constexpr uint32_t kAtomicSize = 8;  // an atomic always moves 8 bytes

struct Cell {
  Direction direction = Direction::kReferenceToDut;
  Operation operation = Operation::kSend;
  uint32_t size = 0;  // message bytes; kAtomicSize for atomics
  uint32_t mtu = 1024;
  Impairment impairment = Impairment::kNone;
  std::string name() const;  // "ref-rxe/WRITE/4096/mtu1024/loss", unique in a matrix
};

// The full matrix (direction x operation x size x MTU x impairment; sizes 0, 1, 4096,
// 65536 and 1 MiB, atomics once at 8 bytes) or the quick subset.
std::vector<Cell> matrix_cells(bool quick);

// The probabilities of each impairment (2%), the same in both directions.
double impairment_rate(Impairment i);

}  // namespace mr::interop
