// File: qp_state.h
//
// The QP state machine of IBTA 10.3.1 (and ibv_modify_qp): which transitions exist and
// which attributes each one requires.
#pragma once

#include <cstdint>
#include <string_view>

namespace mr::transport {

enum class QpState : uint8_t { kReset, kInit, kRtr, kRts, kSqd, kError };

// The transport service of a QP (ibv_qp_type): reliable connected, unreliable connected,
// unreliable datagram.
enum class QpType : uint8_t { kRc, kUc, kUd };

std::string_view to_string(QpType t);
bool qp_type_from_string(std::string_view name, QpType& out);

std::string_view to_string(QpState s);
bool qp_state_from_string(std::string_view name, QpState& out);

// Attributes of modify_qp, as a bit mask (the ibv_qp_attr_mask of the verbs API).
enum QpAttrMask : uint32_t {
  kAttrState = 1 << 0,
  kAttrAccessFlags = 1 << 1,
  kAttrPkey = 1 << 2,
  kAttrPathMtu = 1 << 3,
  kAttrAddress = 1 << 4,  // the address vector: GIDs, MACs, UDP source port, traffic class
  kAttrDestQpn = 1 << 5,
  kAttrRqPsn = 1 << 6,
  kAttrSqPsn = 1 << 7,
  kAttrTimeout = 1 << 8,
  kAttrRetryCnt = 1 << 9,
  kAttrRnrRetry = 1 << 10,
  kAttrMinRnrTimer = 1 << 11,
  kAttrMaxRdAtomic = 1 << 12,
  kAttrMaxDestRdAtomic = 1 << 13,
  kAttrQkey = 1 << 14,  // UD: the Q_Key a received DETH must carry
  // The peer's MXCAP block (spec section 18: CM private data, or the control protocol's
  // peer block), read at INIT to RTR; verbs has no such attribute.
  kAttrPeerMxcap = 1 << 15,
  // The EV set the management plane gives an Ext QP at INIT to RTR (section 20.1), in place
  // of the generated default; verbs has no such attribute.
  kAttrEvSet = 1 << 16,
  // Secure mode's security associations (section 19.4): before INIT to RTR the QP's first
  // keys, later the next epoch's; verbs has no such attribute.
  kAttrSecureSa = 1 << 17,
  // The management plane asks a secure QP's sender to move to its next epoch (MR-SE-08).
  kAttrSecureRotate = 1 << 18,
  // The MXCAP block this QP offers at INIT to RTR when the management plane narrows the
  // device's own for one connection (a CM agent offering less); verbs has no such attribute.
  kAttrOfferedMxcap = 1 << 19,
};

// Checks a transition: `from` -> `to` must exist, and `mask` must hold every attribute
// that transition requires for a QP of `type` (IBTA 10.3.1, the required attributes of
// ibv_modify_qp per QP type). Returns "" when allowed, else the reason.
std::string_view check_transition(QpState from, QpState to, uint32_t mask,
                                  QpType type = QpType::kRc);

}  // namespace mr::transport
