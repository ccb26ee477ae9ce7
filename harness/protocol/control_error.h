// File: control_error.h
//
// The error of the DUT control protocol (docs/dut-control-protocol.md): a POSIX-style code
// a program can switch on, a message for people, and the path of the request field at
// fault ("wr.sg_list[1].lkey"), empty when no single field is to blame.
//
//   return control_error(ErrorCode::kEinval, "must be 0..7", "attrs.retry_cnt");
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "reference/error/expected.h"

namespace mr::protocol {

enum class ErrorCode : uint8_t {
  kEinval,     // a malformed or out-of-range argument
  kEnoent,     // no such object (PD, MR, CQ, SRQ, QP)
  kEbusy,      // the object is in use (a PD with regions, a CQ with QPs)
  kEperm,      // not allowed (access flags)
  kEnospc,     // a queue or table is full
  kEtimedout,  // a bounded wait ran out
  kEproto,     // not a protocol message (bad JSON, no id, too long), a hello after the first
  kEnotsup,    // the op or feature is not supported by this agent or backend
};

std::string_view to_string(ErrorCode code);
std::optional<ErrorCode> error_code_from_string(std::string_view name);

struct ControlError {
  ErrorCode code = ErrorCode::kEinval;
  std::string message;
  std::string field;  // "path.to.field", or empty

  std::string to_string() const;
};

template <class T>
using Result = Expected<T, ControlError>;

inline Unexpected<ControlError> control_error(ErrorCode code, std::string message,
                                              std::string field = {}) {
  return Unexpected(ControlError{code, std::move(message), std::move(field)});
}

}  // namespace mr::protocol
