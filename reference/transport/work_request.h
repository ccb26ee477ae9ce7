// File: work_request.h
//
// Work requests and completions, shaped like the verbs API (ibv_send_wr, ibv_recv_wr,
// ibv_wc) so that the DUT control protocol maps onto them one to one.
#pragma once

#include <absl/container/inlined_vector.h>

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "reference/transport/address_vector.h"

namespace mr::transport {

struct Sge {
  uint64_t addr = 0;
  uint32_t length = 0;
  uint32_t lkey = 0;

  friend bool operator==(const Sge&, const Sge&) = default;
};

// A work request's scatter/gather list. Most have one or two entries: those are held inline,
// so posting a work request allocates nothing (a std::vector here cost two heap blocks per
// message, a fifth of the time at 100,000 QPs).
using SgeList = absl::InlinedVector<Sge, 2>;

enum class SendOpcode : uint8_t {
  kSend,
  kSendWithImm,
  kSendWithInv,
  kWrite,
  kWriteWithImm,
  kRead,
  kCompareSwap,
  kFetchAdd,
};

std::string_view to_string(SendOpcode op);
bool send_opcode_from_string(std::string_view name, SendOpcode& out);

// The destination of a UD send (ibv_send_wr's wr.ud: the address handle, remote QPN and
// remote Q_Key). A Q_Key with bit 31 set is controlled: the QP's own Q_Key is sent.
struct UdDestination {
  AddressVector ah;
  uint32_t remote_qpn = 0;
  uint32_t remote_qkey = 0;
};

inline constexpr uint32_t kControlledQkeyBit = 0x80000000U;

struct SendWr {
  uint64_t wr_id = 0;
  SendOpcode opcode = SendOpcode::kSend;
  SgeList sg_list;
  bool signaled = true;
  bool solicited = false;
  uint32_t imm_data = 0;         // network order value as carried in ImmDt
  uint32_t invalidate_rkey = 0;  // SEND_WITH_INV
  uint64_t remote_addr = 0;      // WRITE, READ, atomics
  uint32_t rkey = 0;
  uint64_t compare_add = 0;  // COMPARE_SWAP compare value, FETCH_ADD add value
  uint64_t swap = 0;
  std::optional<UdDestination> ud;  // UD QPs only
};

struct RecvWr {
  uint64_t wr_id = 0;
  SgeList sg_list;
};

// ibv_wc_status values that the reference produces.
enum class WcStatus : uint8_t {
  kSuccess,
  kLocalLengthError,
  kLocalQpOperationError,
  kLocalProtectionError,
  kWrFlushError,
  kRemoteInvalidRequestError,
  kRemoteAccessError,
  kRemoteOperationError,
  kRetryExceededError,
  kRnrRetryExceededError,
  kBadResponseError,
  kGeneralError,
  kRemoteAbortError,  // Part II: a message the requester gave up (RESYNC code 2 or 3, 22.3)
};

std::string_view to_string(WcStatus s);

enum class WcOpcode : uint8_t {
  kSend,
  kRdmaWrite,
  kRdmaRead,
  kCompareSwap,
  kFetchAdd,
  kRecv,
  kRecvRdmaWithImm,
};

std::string_view to_string(WcOpcode op);

struct Completion {
  uint64_t wr_id = 0;
  WcStatus status = WcStatus::kSuccess;
  WcOpcode opcode = WcOpcode::kSend;
  uint32_t byte_len = 0;
  uint32_t qp_num = 0;
  std::optional<uint32_t> imm_data;
  std::optional<uint32_t> invalidated_rkey;
  bool solicited = false;          // the message ended with SE = 1 (receive side)
  std::optional<uint32_t> src_qp;  // UD receive: the sender's QPN from the DETH
  bool grh = false;                // UD receive: the buffer starts with the 40-byte GRH area
};

}  // namespace mr::transport
