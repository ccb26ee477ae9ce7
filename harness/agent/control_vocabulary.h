// File: control_vocabulary.h
//
// The agent answers in the DUT control protocol's vocabulary, which harness/protocol owns
// for both ends: its error (control_error.h) and its bounds (protocol_limits.h). Inside
// mr::agent they go by their short names.
//
//   return control_error(ErrorCode::kEinval, "must be 0..7", "attrs.retry_cnt");
#pragma once

#include "harness/protocol/control_error.h"
#include "harness/protocol/protocol_limits.h"

namespace mr::agent {

using protocol::control_error;
using protocol::ControlError;
using protocol::error_code_from_string;
using protocol::ErrorCode;
using protocol::kMaxLineBytes;
using protocol::kMaxMemTransfer;
using protocol::kMaxPollEntries;
using protocol::kMaxPollTimeoutMs;
using protocol::kMaxSge;
using protocol::kProtocolVersion;
using protocol::Result;

}  // namespace mr::agent
