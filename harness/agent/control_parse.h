// File: control_parse.h
//
// The field parsers behind parse_request (control_message.h) for the structured arguments:
// work requests, QP attributes and address vectors, access flag lists, hex data.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/agent/control_vocabulary.h"
#include "harness/agent/dut_types.h"
#include "harness/agent/json_reader.h"

namespace mr::agent {

// ["LOCAL_WRITE", "REMOTE_READ", ...] -> memory::Access bits. `allowed` limits the names.
Result<uint32_t> parse_access_list(const nlohmann::json& list, const std::string& path,
                                   uint32_t allowed);
Result<std::vector<uint8_t>> parse_hex(const nlohmann::json& value, const std::string& path,
                                       size_t max_bytes);
Result<transport::SendWr> parse_send_wr(const nlohmann::json& wr, const std::string& path);
Result<transport::RecvWr> parse_recv_wr(const nlohmann::json& wr, const std::string& path);
Result<ModifyQpArgs> parse_modify_qp_attrs(uint32_t qpn, const nlohmann::json& attrs,
                                           const std::string& path);
Result<AvArgs> parse_av(const nlohmann::json& av, const std::string& path);
// Section 20.1's EV set: an array of 1 to 4,096 objects {"ev": 1..65535, "plane": 0..15},
// each EV listed once. Whether the device has the planes is the device's question.
Result<std::vector<transport::ext::EvEntry>> parse_ev_set(const nlohmann::json& list,
                                                          const std::string& path);
// Section 19.4's keys: {"tx": [SA, ...], "rx": [SA, ...], "rekey_packets"?: 16..2^48}, each
// SA {"epoch": 0..65535, "key": 64 hex digits, "salt": 8 hex digits, "spi": 32-bit}, at
// most 4 per list, each epoch listed once per list.
Result<transport::ext::SecurityAssociations> parse_secure_sa(const nlohmann::json& object,
                                                             const std::string& path);
// A UD work request's destination: {"ah": {...address vector...}, "remote_qpn": N,
// "remote_qkey": N}. Source MAC and IP, and an absent dmac, are left zero for the backend.
Result<transport::UdDestination> parse_ud_destination(const nlohmann::json& ud,
                                                      const std::string& path);

}  // namespace mr::agent
