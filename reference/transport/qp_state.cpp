#include "reference/transport/qp_state.h"

#include "reference/transport/verbs_names.h"

namespace mr::transport {
namespace {

bool has_all(uint32_t mask, uint32_t required) { return (mask & required) == required; }

// UC and UD need fewer attributes than RC: no READ/ATOMIC resources, no retry or RNR
// timers; UD has no connection at all, but needs its Q_Key from INIT on.
std::string_view check_unreliable(QpState from, QpState to, uint32_t mask, QpType type) {
  using S = QpState;
  const bool ud = type == QpType::kUd;
  if (from == S::kReset && to == S::kInit) {
    if (ud && !has_all(mask, kAttrPkey | kAttrQkey))
      return "RESET->INIT of a UD QP requires pkey and qkey";
    if (!ud && !has_all(mask, kAttrPkey | kAttrAccessFlags))
      return "RESET->INIT requires pkey and access_flags";
    return "";
  }
  if (from == S::kInit && to == S::kRtr) {
    if (!ud && !has_all(mask, kAttrAddress | kAttrPathMtu | kAttrDestQpn | kAttrRqPsn))
      return "INIT->RTR of a UC QP requires address, path_mtu, dest_qpn and rq_psn";
    return "";
  }
  if (from == S::kRtr && to == S::kRts) {
    if (!has_all(mask, kAttrSqPsn)) return "RTR->RTS of a UC or UD QP requires sq_psn";
    return "";
  }
  return check_transition(from, to,
                          kAttrPkey | kAttrAccessFlags | kAttrAddress | kAttrPathMtu |
                              kAttrDestQpn | kAttrRqPsn | kAttrMaxDestRdAtomic | kAttrMinRnrTimer |
                              kAttrSqPsn | kAttrTimeout | kAttrRetryCnt | kAttrRnrRetry |
                              kAttrMaxRdAtomic,
                          QpType::kRc);
}

}  // namespace

std::string_view to_string(QpState s) { return qp_state_names()[static_cast<size_t>(s)]; }

bool qp_state_from_string(std::string_view name, QpState& out) {
  const auto names = qp_state_names();
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == name) {
      out = static_cast<QpState>(i);
      return true;
    }
  }
  return false;
}

std::string_view to_string(QpType t) { return qp_type_names()[static_cast<size_t>(t)]; }

bool qp_type_from_string(std::string_view name, QpType& out) {
  const auto names = qp_type_names();
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == name) {
      out = static_cast<QpType>(i);
      return true;
    }
  }
  return false;
}

std::string_view check_transition(QpState from, QpState to, uint32_t mask, QpType type) {
  using S = QpState;
  if (type != QpType::kRc && to != S::kReset && to != S::kError)
    return check_unreliable(from, to, mask, type);
  // Any state may go to RESET or ERROR (IBTA 10.3.1).
  if (to == S::kReset || to == S::kError) return "";
  switch (from) {
    case S::kReset:
      if (to != S::kInit) return "RESET may only go to INIT, RESET or ERROR";
      if ((mask & (kAttrPkey | kAttrAccessFlags)) != (kAttrPkey | kAttrAccessFlags)) {
        return "RESET->INIT requires pkey and access_flags";
      }
      return "";
    case S::kInit:
      if (to == S::kInit) return "";
      if (to != S::kRtr) return "INIT may only go to INIT, RTR, RESET or ERROR";
      if ((mask & (kAttrAddress | kAttrPathMtu | kAttrDestQpn | kAttrRqPsn | kAttrMaxDestRdAtomic |
                   kAttrMinRnrTimer)) != (kAttrAddress | kAttrPathMtu | kAttrDestQpn | kAttrRqPsn |
                                          kAttrMaxDestRdAtomic | kAttrMinRnrTimer)) {
        return "INIT->RTR requires address, path_mtu, dest_qpn, rq_psn, max_dest_rd_atomic and "
               "min_rnr_timer";
      }
      return "";
    case S::kRtr:
      if (to != S::kRts) return "RTR may only go to RTS, RESET or ERROR";
      if ((mask & (kAttrSqPsn | kAttrTimeout | kAttrRetryCnt | kAttrRnrRetry | kAttrMaxRdAtomic)) !=
          (kAttrSqPsn | kAttrTimeout | kAttrRetryCnt | kAttrRnrRetry | kAttrMaxRdAtomic)) {
        return "RTR->RTS requires sq_psn, timeout, retry_cnt, rnr_retry and max_rd_atomic";
      }
      return "";
    case S::kRts:
      if (to == S::kRts || to == S::kSqd) return "";
      return "RTS may only go to RTS, SQD, RESET or ERROR";
    case S::kSqd:
      if (to == S::kRts || to == S::kSqd) return "";
      return "SQD may only go to SQD, RTS, RESET or ERROR";
    case S::kError:
      return "ERROR may only go to RESET";
  }
  return "unknown state";
}

}  // namespace mr::transport
