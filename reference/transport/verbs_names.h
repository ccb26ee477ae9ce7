// File: verbs_names.h
//
// The verbs vocabulary by name, as the DUT control protocol and the test language spell it:
// send opcodes (ibv_wr_opcode), completion statuses (ibv_wc_status) and opcodes
// (ibv_wc_opcode), QP states and types. One list each, in the order of the transport's
// enums, so that a name and its enum value cannot drift apart. A target of its own with no
// dependencies: the script parser checks names against it without linking the transport.
#pragma once

#include <span>
#include <string_view>

namespace mr::transport {

// In SendOpcode order.
std::span<const std::string_view> send_opcode_names();
// In WcStatus order.
std::span<const std::string_view> wc_status_names();
// In WcOpcode order.
std::span<const std::string_view> wc_opcode_names();
// In QpState order.
std::span<const std::string_view> qp_state_names();
// In QpType order.
std::span<const std::string_view> qp_type_names();

}  // namespace mr::transport
