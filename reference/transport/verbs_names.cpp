#include "reference/transport/verbs_names.h"

#include <array>

namespace mr::transport {
namespace {

constexpr std::array<std::string_view, 8> kSendOpcodes{
    "SEND",      "SEND_WITH_IMM",      "SEND_WITH_INV",       "RDMA_WRITE", "RDMA_WRITE_WITH_IMM",
    "RDMA_READ", "ATOMIC_CMP_AND_SWP", "ATOMIC_FETCH_AND_ADD"};

constexpr std::array<std::string_view, 13> kStatuses{
    "SUCCESS",         "LOC_LEN_ERR",    "LOC_QP_OP_ERR", "LOC_PROT_ERR",  "WR_FLUSH_ERR",
    "REM_INV_REQ_ERR", "REM_ACCESS_ERR", "REM_OP_ERR",    "RETRY_EXC_ERR", "RNR_RETRY_EXC_ERR",
    "BAD_RESP_ERR",    "GENERAL_ERR",    "REM_ABORT_ERR"};

constexpr std::array<std::string_view, 7> kWcOpcodes{
    "SEND", "RDMA_WRITE", "RDMA_READ", "COMP_SWAP", "FETCH_ADD", "RECV", "RECV_RDMA_WITH_IMM"};

constexpr std::array<std::string_view, 6> kStates{"RESET", "INIT", "RTR", "RTS", "SQD", "ERROR"};

constexpr std::array<std::string_view, 3> kTypes{"RC", "UC", "UD"};

}  // namespace

std::span<const std::string_view> send_opcode_names() { return kSendOpcodes; }
std::span<const std::string_view> wc_status_names() { return kStatuses; }
std::span<const std::string_view> wc_opcode_names() { return kWcOpcodes; }
std::span<const std::string_view> qp_state_names() { return kStates; }
std::span<const std::string_view> qp_type_names() { return kTypes; }

}  // namespace mr::transport
