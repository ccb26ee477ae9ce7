// File: ack_policy.cpp
#include "reference/transport/ext/ack_policy.h"

#include <algorithm>

#include "reference/wire/psn.h"

namespace mr::transport::ext {

void AckPolicy::on_packet(const AnsweredPacket& packet) {
  if (!oldest_unanswered_ns_) oldest_unanswered_ns_ = packet.arrived_ns;
  if (!packet.duplicate) ++accepted_since_ack_;
  if (packet.ce) ce_since_ack_ = std::min<uint32_t>(ce_since_ack_ + 1, 0xffff);
  // An AR packet, a probe, and a CE mark under ADAPTIVE are triggering packets of their own;
  // the caller sends their ACK before the next packet is taken (ack_due is true at once).
  const bool own = packet.ack_request || packet.probe || (parameters_.adaptive && packet.ce);
  immediate_ = immediate_ || own;
  ara_ = packet.ack_request;
  trigger_ = packet;
}

void AckPolicy::on_cumulative(uint32_t c) {
  if (!awaited_ar_psn_ || wire::psn_diff(c, *awaited_ar_psn_) < 0) return;
  if (!parameters_.answers_awaited_ar) return;
  awaited_ar_psn_.reset();
  immediate_ = immediate_ || trigger_.has_value();
}

bool AckPolicy::ack_due(uint64_t now_ns) const {
  if (!trigger_) return false;
  if (immediate_ || accepted_since_ack_ >= parameters_.every) return true;
  return now_ns >= *oldest_unanswered_ns_ + parameters_.delay_ns;
}

std::optional<uint64_t> AckPolicy::deadline() const {
  if (!trigger_) return std::nullopt;
  if (immediate_ || accepted_since_ack_ >= parameters_.every) return trigger_->arrived_ns;
  return *oldest_unanswered_ns_ + parameters_.delay_ns;
}

wire::Sacketh AckPolicy::build(const ReceivedPsnWindow& window, SackCursor& cursor,
                               uint64_t now_ns) {
  const AnsweredPacket t = trigger_.value_or(AnsweredPacket{});
  const SackReport report = cursor.next(window, ara_ ? std::optional(t.psn) : std::nullopt);
  wire::Sacketh s;
  s.ece = t.ce ? 1 : 0;
  s.trm = t.remarked ? 1 : 0;
  s.oow = beyond_window_ ? 1 : 0;
  s.prb = t.probe ? 1 : 0;
  s.dup = t.duplicate ? 1 : 0;
  s.tse = t.tx_timestamp ? 1 : 0;
  s.ara = report.ara ? 1 : 0;
  s.sack_ref = report.reference;
  s.bitmap = report.bitmap;
  s.ev_echo = t.ev;
  s.plane_echo = t.plane;
  s.mpr = window.mpr();
  if (!parameters_.keeps_window)
    s.mpr =
        static_cast<uint8_t>(std::max<int>(1, window.mpr() - static_cast<int>(acks_built_++ % 8)));
  if (!parameters_.advertises_mpr) s.mpr = 0;
  s.ce_count = ce_since_ack_;
  // Units of 64 ns, saturating.
  const uint64_t waited = now_ns > t.arrived_ns ? now_ns - t.arrived_ns : 0;
  s.service_time = parameters_.reports_service_time
                       ? static_cast<uint16_t>(std::min<uint64_t>(waited / 64, 0xffff))
                       : 0;
  s.ts_echo = t.tx_timestamp.value_or(0);
  s.sack_offset = report.offset;
  // This ACK tells the sender about the awaited AR packet if it reaches it.
  if (awaited_ar_psn_ && wire::psn_diff(window.cumulative(), *awaited_ar_psn_) >= 0)
    awaited_ar_psn_.reset();
  if (ara_ && wire::psn_diff(window.cumulative(), t.psn) < 0) awaited_ar_psn_ = t.psn;
  trigger_.reset();
  oldest_unanswered_ns_.reset();
  accepted_since_ack_ = 0;
  ce_since_ack_ = 0;
  immediate_ = false;
  ara_ = false;
  beyond_window_ = false;
  return s;
}

}  // namespace mr::transport::ext
