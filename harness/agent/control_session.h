// File: control_session.h
//
// One client's session of the DUT control protocol (docs/dut-control-protocol.md,
// "Session"), line by line and without the socket, so that every rule is tested without one:
//   - the first line must be a hello with the right token; anything else gets no reply at
//     all and ends the session;
//   - a hello with the right token that does not parse (protocol missing, a member unknown,
//     of the wrong type or named twice) gets its EINVAL reply, one naming another protocol
//     its ENOTSUP reply, and either ends the session: the handshake failed;
//   - after it, every line is a request for the RequestDispatcher, except a hello: a second
//     hello is refused with EPROTO (field op), whatever its token, changes nothing, and the
//     session goes on;
//   - bye is answered, then the session ends;
//   - a line too long to read gets an EPROTO reply with a null id (none before the hello),
//     then the session ends.
//
//   ControlSession session(dispatcher, token);
//   const SessionStep step = session.handle_line(line);
//   if (step.reply) send(*step.reply + "\n");
//   if (step.close) return;
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "harness/agent/request_dispatcher.h"

namespace mr::agent {

struct SessionStep {
  std::optional<std::string> reply;  // one JSON object without its newline; none: send nothing
  bool close = false;                // the session is over once the reply is sent
};

class ControlSession {
 public:
  // `dispatcher` must outlive the session; `token` must not be empty.
  ControlSession(RequestDispatcher& dispatcher, std::string token)
      : dispatcher_(dispatcher), token_(std::move(token)) {}

  // Whether the hello succeeded.
  bool authenticated() const { return authenticated_; }
  // One line without its newline (blank lines are the transport's to skip).
  SessionStep handle_line(std::string_view line);
  // The transport read a line longer than kMaxLineBytes.
  SessionStep too_long_line() const;

 private:
  SessionStep hello(std::string_view line);
  bool has_right_token(const nlohmann::json& message) const;

  RequestDispatcher& dispatcher_;
  std::string token_;
  bool authenticated_ = false;
};

// Compares in time independent of where the strings differ.
bool constant_time_equal(std::string_view a, std::string_view b);

}  // namespace mr::agent
