// File: work_request.h
//
// Work requests and completions, shaped like the verbs API (ibv_send_wr, ibv_recv_wr,
// ibv_wc) so that the DUT control protocol maps onto them one to one.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace mr::transport {

struct Sge {
  uint64_t addr = 0;
  uint32_t length = 0;
  uint32_t lkey = 0;
};

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

struct SendWr {
  uint64_t wr_id = 0;
  SendOpcode opcode = SendOpcode::kSend;
  std::vector<Sge> sg_list;
  bool signaled = true;
  bool solicited = false;
  uint32_t imm_data = 0;         // network order value as carried in ImmDt
  uint32_t invalidate_rkey = 0;  // SEND_WITH_INV
  uint64_t remote_addr = 0;      // WRITE, READ, atomics
  uint32_t rkey = 0;
  uint64_t compare_add = 0;  // COMPARE_SWAP compare value, FETCH_ADD add value
  uint64_t swap = 0;
};

struct RecvWr {
  uint64_t wr_id = 0;
  std::vector<Sge> sg_list;
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
  bool solicited = false;  // the message ended with SE = 1 (receive side)
};

}  // namespace mr::transport
