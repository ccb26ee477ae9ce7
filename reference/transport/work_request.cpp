#include "reference/transport/work_request.h"

#include <array>

namespace mr::transport {
namespace {

constexpr std::array<std::string_view, 8> kSendOpcodes{
    "SEND",      "SEND_WITH_IMM",      "SEND_WITH_INV",       "RDMA_WRITE", "RDMA_WRITE_WITH_IMM",
    "RDMA_READ", "ATOMIC_CMP_AND_SWP", "ATOMIC_FETCH_AND_ADD"};

constexpr std::array<std::string_view, 12> kStatuses{
    "SUCCESS",       "LOC_LEN_ERR",       "LOC_QP_OP_ERR",  "LOC_PROT_ERR",
    "WR_FLUSH_ERR",  "REM_INV_REQ_ERR",   "REM_ACCESS_ERR", "REM_OP_ERR",
    "RETRY_EXC_ERR", "RNR_RETRY_EXC_ERR", "BAD_RESP_ERR",   "GENERAL_ERR"};

constexpr std::array<std::string_view, 7> kWcOpcodes{
    "SEND", "RDMA_WRITE", "RDMA_READ", "COMP_SWAP", "FETCH_ADD", "RECV", "RECV_RDMA_WITH_IMM"};

}  // namespace

std::string_view to_string(SendOpcode op) { return kSendOpcodes[static_cast<size_t>(op)]; }

bool send_opcode_from_string(std::string_view name, SendOpcode& out) {
  for (size_t i = 0; i < kSendOpcodes.size(); ++i) {
    if (kSendOpcodes[i] == name) {
      out = static_cast<SendOpcode>(i);
      return true;
    }
  }
  return false;
}

std::string_view to_string(WcStatus s) { return kStatuses[static_cast<size_t>(s)]; }

std::string_view to_string(WcOpcode op) { return kWcOpcodes[static_cast<size_t>(op)]; }

}  // namespace mr::transport
