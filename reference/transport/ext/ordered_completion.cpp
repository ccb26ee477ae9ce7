// File: ordered_completion.cpp
#include "reference/transport/ext/ordered_completion.h"

#include "reference/wire/psn.h"

namespace mr::transport::ext {

std::optional<std::string> placement_error(PacketPosition position, uint64_t offset,
                                           uint64_t payload, uint64_t dma_length, uint32_t pmtu) {
  if (pmtu == 0 || offset % pmtu != 0)
    return "offset " + std::to_string(offset) + " is not a multiple of the PMTU " +
           std::to_string(pmtu);
  const bool starts = position == PacketPosition::kFirst || position == PacketPosition::kOnly;
  const bool ends = position == PacketPosition::kLast || position == PacketPosition::kOnly;
  if (starts && offset != 0) return "a FIRST or ONLY packet at offset " + std::to_string(offset);
  if (!ends && payload != pmtu)
    return "a FIRST or MIDDLE packet of " + std::to_string(payload) + " bytes, not one PMTU (" +
           std::to_string(pmtu) + ")";
  if (offset + payload > dma_length)
    return "bytes " + std::to_string(offset) + " to " + std::to_string(offset + payload) +
           " beyond the DMA length " + std::to_string(dma_length);
  if (ends && offset + payload != dma_length)
    return "a LAST or ONLY packet ending at " + std::to_string(offset + payload) +
           ", not at the DMA length " + std::to_string(dma_length);
  return std::nullopt;
}

void RqsnBinding::post(uint64_t wqe) { wqes_.push_back(wqe); }

std::optional<uint64_t> RqsnBinding::bind(uint32_t rqsn) {
  if (auto it = bound_.find(rqsn); it != bound_.end()) return it->second;
  if (shared_) {
    if (wqes_.empty()) return std::nullopt;
    const uint64_t wqe = wqes_.front();
    wqes_.erase(wqes_.begin());
    bound_[rqsn] = wqe;
    return wqe;
  }
  // A receive queue: WQE k serves RQSN k, so RQSN r needs the (r - next)-th unbound WQE.
  const int32_t ahead = wire::psn_diff(rqsn, next_rqsn_);  // RQSNs are 24-bit, as PSNs
  if (ahead < 0 || static_cast<size_t>(ahead) >= wqes_.size()) return std::nullopt;
  // Bind every WQE up to it, in order, so that each keeps its own RQSN.
  for (int32_t k = 0; k <= ahead; ++k) {
    bound_[wire::psn_add(next_rqsn_, k)] = wqes_[static_cast<size_t>(k)];
  }
  wqes_.erase(wqes_.begin(), wqes_.begin() + ahead + 1);
  next_rqsn_ = wire::psn_add(rqsn, 1);
  return bound_[rqsn];
}

void RqsnBinding::consume(uint32_t rqsn) { bound_.erase(rqsn); }

void MessageCompletions::on_last_packet(uint32_t msn, uint32_t last_psn) {
  // Messages before the next to complete are done already: a duplicate LAST changes nothing.
  if (wire::psn_diff(msn, (completed_ + 1) & 0xffffff) < 0) return;
  last_.emplace(msn, last_psn);
}

std::vector<uint32_t> MessageCompletions::advance(uint32_t cumulative_psn) {
  std::vector<uint32_t> done;
  for (;;) {
    const uint32_t next = (completed_ + 1) & 0xffffff;
    auto it = last_.find(next);
    if (it == last_.end() || wire::psn_diff(it->second, cumulative_psn) > 0) break;
    done.push_back(next);
    last_.erase(it);
    ++completed_;
  }
  return done;
}

}  // namespace mr::transport::ext
