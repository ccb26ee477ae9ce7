#include "harness/interop/cell.h"

#include <array>

namespace mr::interop {

std::string_view direction_name(Direction d) {
  return d == Direction::kReferenceToDut ? "ref-rxe" : "rxe-ref";
}

std::string_view operation_name(Operation o) {
  static constexpr std::array<std::string_view, 5> kNames = {"SEND", "WRITE", "READ", "FETCH_ADD",
                                                             "COMPARE_SWAP"};
  return kNames[static_cast<size_t>(o)];
}

std::string_view impairment_name(Impairment i) {
  static constexpr std::array<std::string_view, 3> kNames = {"none", "loss", "reorder"};
  return kNames[static_cast<size_t>(i)];
}

bool is_atomic(Operation o) { return o == Operation::kFetchAdd || o == Operation::kCompareSwap; }

double impairment_rate(Impairment i) { return i == Impairment::kNone ? 0.0 : 0.02; }

std::string Cell::name() const {
  return std::string(direction_name(direction)) + "/" + std::string(operation_name(operation)) +
         "/" + std::to_string(size) + "/mtu" + std::to_string(mtu) + "/" +
         std::string(impairment_name(impairment));
}

std::vector<Cell> matrix_cells(bool quick) {
  using D = Direction;
  using O = Operation;
  using I = Impairment;
  if (quick) {
    // Every direction x operation, both MTUs, every impairment, the sizes' edges (0, 1)
    // and multi-packet messages (4096 at MTU 1024, 65536), each at least once. rxe as
    // requester gets no more than 16 packets per message under loss: its retry budget is
    // per message, not per stall (reports/interop/README.md), so longer ones fail by design.
    return {
        {D::kReferenceToDut, O::kSend, 0, 1024, I::kNone},
        {D::kReferenceToDut, O::kSend, 4096, 4096, I::kLoss},
        {D::kReferenceToDut, O::kWrite, 1, 1024, I::kNone},
        {D::kReferenceToDut, O::kWrite, 65536, 1024, I::kLoss},
        {D::kReferenceToDut, O::kWrite, 65536, 4096, I::kReorder},
        {D::kReferenceToDut, O::kRead, 4096, 1024, I::kNone},
        {D::kReferenceToDut, O::kRead, 65536, 4096, I::kLoss},
        {D::kReferenceToDut, O::kRead, 1, 1024, I::kReorder},
        {D::kReferenceToDut, O::kFetchAdd, kAtomicSize, 1024, I::kNone},
        {D::kReferenceToDut, O::kCompareSwap, kAtomicSize, 4096, I::kLoss},
        {D::kDutToReference, O::kSend, 1, 1024, I::kNone},
        {D::kDutToReference, O::kSend, 65536, 4096, I::kReorder},
        {D::kDutToReference, O::kSend, 4096, 1024, I::kLoss},
        {D::kDutToReference, O::kWrite, 0, 4096, I::kNone},
        {D::kDutToReference, O::kWrite, 65536, 4096, I::kLoss},
        {D::kDutToReference, O::kRead, 0, 1024, I::kNone},
        {D::kDutToReference, O::kRead, 65536, 1024, I::kReorder},
        {D::kDutToReference, O::kRead, 4096, 4096, I::kLoss},
        {D::kDutToReference, O::kFetchAdd, kAtomicSize, 4096, I::kLoss},
        {D::kDutToReference, O::kCompareSwap, kAtomicSize, 1024, I::kNone},
    };
  }
  std::vector<Cell> cells;
  for (const D d : {D::kReferenceToDut, D::kDutToReference}) {
    for (const O o : {O::kSend, O::kWrite, O::kRead, O::kFetchAdd, O::kCompareSwap}) {
      const std::vector<uint32_t> sizes = is_atomic(o)
                                              ? std::vector<uint32_t>{kAtomicSize}
                                              : std::vector<uint32_t>{0, 1, 4096, 65536, 1U << 20};
      for (const uint32_t size : sizes) {
        for (const uint32_t mtu : {1024U, 4096U}) {
          for (const I i : {I::kNone, I::kLoss, I::kReorder}) cells.push_back({d, o, size, mtu, i});
        }
      }
    }
  }
  return cells;
}

}  // namespace mr::interop
