// File: read_reissue.cpp
#include "reference/transport/ext/read_reissue.h"

#include <algorithm>

#include "reference/wire/psn.h"

namespace mr::transport::ext {

OutstandingRead::OutstandingRead(ReadRequestFields request, uint32_t pmtu, uint32_t ooo_threshold,
                                 uint64_t issued_ns)
    : original_(request),
      pmtu_(std::max<uint32_t>(pmtu, 1)),
      ooo_threshold_(ooo_threshold),
      issued_ns_(issued_ns),
      // A zero-length READ has one response packet.
      arrived_(std::max<size_t>(1, (size_t{request.dma_length} + pmtu_ - 1) / pmtu_), false) {}

bool OutstandingRead::on_response(uint32_t psn) {
  const int32_t index = wire::psn_diff(psn, original_.first_psn);
  if (index < 0 || static_cast<size_t>(index) >= arrived_.size()) return false;
  if (arrived_[index]) {
    if (awaiting_ && static_cast<uint32_t>(index) == *awaiting_) awaiting_.reset();
    return false;
  }
  if (awaiting_ && static_cast<uint32_t>(index) == *awaiting_) awaiting_.reset();
  timeouts_ = 0;
  arrived_[index] = true;
  ++arrived_count_;
  if (!last_index_ || static_cast<uint32_t>(index) > *last_index_)
    last_index_ = static_cast<uint32_t>(index);
  return true;
}

bool OutstandingRead::on_trimmed(uint32_t psn) {
  const int32_t index = wire::psn_diff(psn, original_.first_psn);
  if (index < 0 || static_cast<size_t>(index) >= arrived_.size() || arrived_[index]) return false;
  if (!awaiting_) return true;
  if (static_cast<uint32_t>(index) != *awaiting_) return false;
  awaiting_.reset();
  return true;
}

std::optional<uint32_t> OutstandingRead::first_missing(uint64_t now_ns, uint64_t rto_ns) const {
  const auto hole = std::find(arrived_.begin(), arrived_.end(), false);
  if (hole == arrived_.end()) return std::nullopt;
  const auto m = static_cast<uint32_t>(hole - arrived_.begin());
  // Later responses of this READ that arrived.
  const auto later = static_cast<uint32_t>(std::count(hole + 1, arrived_.end(), true));
  if ((!awaiting_ && later >= ooo_threshold_) ||
      (now_ns >= issued_ns_ && now_ns - issued_ns_ >= rto_ns))
    return wire::psn_add(original_.first_psn, m);
  return std::nullopt;
}

ReadRequestFields OutstandingRead::reissue(uint32_t m, uint64_t now_ns) {
  issued_ns_ = now_ns;
  awaiting_ = static_cast<uint32_t>(std::max(0, wire::psn_diff(m, original_.first_psn)));
  return request_from(m);
}

ReadRequestFields OutstandingRead::request_from(uint32_t m) const {
  const auto k = static_cast<uint32_t>(std::max(0, wire::psn_diff(m, original_.first_psn)));
  const uint64_t skip = std::min<uint64_t>(uint64_t{k} * pmtu_, original_.dma_length);
  return {.first_psn = m,
          .va = original_.va + skip,
          .dma_length = static_cast<uint32_t>(original_.dma_length - skip),
          .msn = original_.msn,
          .mxh_offset = static_cast<uint32_t>(skip),
          .retx = true};
}

}  // namespace mr::transport::ext
