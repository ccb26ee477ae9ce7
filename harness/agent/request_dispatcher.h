// File: request_dispatcher.h
//
// One request line in, one reply line out: parse and validate (control_message.h), call the
// backend (dut_backend.h), write the reply (control_reply.h). The same code serves the TCP
// agent (agent_server.h) and the harness's in-process DUT (harness/dut), so the embedded
// reference and a remote agent answer byte for byte alike.
//
// The dispatcher has no session: the token and the hello-first rule are ControlSession's
// (control_session.h, one per TCP client); in process there is nothing to guard, and a hello
// is answered whenever it comes. It does check hello's protocol version.
//
//   RequestDispatcher dispatcher(backend, "reference");
//   DispatchResult r = dispatcher.handle_line(R"({"id":1,"op":"create_pd"})");
//   // r.reply == R"({"id":1,"ok":true,"pd":1})", r.close == false
#pragma once

#include <string>
#include <string_view>

#include "harness/agent/control_message.h"
#include "harness/agent/control_reply.h"
#include "harness/agent/dut_backend.h"
#include "harness/doctor/host_inspector.h"

namespace mr::agent {

struct DispatchResult {
  std::string reply;   // one JSON object, no newline
  bool close = false;  // bye, or a failed hello: the transport closes after sending
};

class RequestDispatcher {
 public:
  RequestDispatcher(DutBackend& backend, std::string backend_name)
      : backend_(backend), backend_name_(std::move(backend_name)) {}

  DispatchResult handle_line(std::string_view line);
  DispatchResult handle(const Request& request);

  // What `doctor` inspects: by default the host this runs on, with verbs and dcb/ethtool;
  // tests point it at a fake tree. A client cannot choose it: the op takes no arguments.
  void set_doctor_options(doctor::InspectOptions options) { doctor_ = std::move(options); }

 private:
  Result<Json> run(const Operation& op);

  DutBackend& backend_;
  std::string backend_name_;
  doctor::InspectOptions doctor_ = doctor::inspect_options_for("/");
};

}  // namespace mr::agent
