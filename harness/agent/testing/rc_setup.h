// File: testing/rc_setup.h
//
// Test helper: sets up one end of an RC connection through the DUT control protocol
// (create_pd, reg_mr, create_cq, create_qp, then RESET->INIT->RTR->RTS) with any way of
// sending a request: a RequestDispatcher in process or a DutControl over TCP. Every failed
// op is a test failure.
//
//   Call call = dispatcher_call(dispatcher);
//   RcEnd a = create_rc_end(call, 0x10000);
//   connect_rc(call, a, b.qpn, "02:00:00:00:00:02", "198.18.0.2");
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/agent/control_reply.h"
#include "harness/agent/request_dispatcher.h"

namespace mr::agent::testing {

// Sends op with args, returns the reply body ({} and a test failure on an error reply).
using Call = std::function<Json(std::string_view op, Json args)>;

Call dispatcher_call(RequestDispatcher& dispatcher);

struct RcEnd {
  uint32_t pd = 0;
  uint32_t cq = 0;
  uint32_t qpn = 0;
  uint32_t lkey = 0;
  uint32_t rkey = 0;
  uint64_t va = 0;
  uint64_t length = 0;
};

// One PD, one 64 KiB region at va (local write, remote write and read), one CQ for both
// queues, one RC QP in RESET.
RcEnd create_rc_end(const Call& call, uint64_t va);
// Moves the QP to RTS towards the peer (PSNs 0x100 both ways, MTU 1024), with the QP's
// access flags `access`, the peer's MXCAP block (hex) when one is given, and the members of
// `rtr_extra` added to the INIT->RTR attributes (an ev_set).
void connect_rc(const Call& call, const RcEnd& self, uint32_t peer_qpn, const std::string& peer_mac,
                const std::string& peer_ip,
                const std::vector<std::string>& access = {"REMOTE_WRITE", "REMOTE_READ"},
                const std::string& peer_mxcap = "", const Json& rtr_extra = Json::object());

}  // namespace mr::agent::testing
