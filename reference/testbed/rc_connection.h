// File: rc_connection.h
//
// An RC connection between two reference devices, set up as a CM exchange would: a QP and a
// registered region on each, both QPs taken to RTS pointing at each other, in extension mode
// where both devices offer MXCAP. The FabricBed's devices use it in virtual time and
// LinkedDevices on the real-time fabric before their pumps start.
//
//   auto c = connect_rc({.device = a, .pd = pd_a, .cq = cq_a, .endpoint = 0},
//                       {.device = b, .pd = pd_b, .cq = cq_b, .endpoint = 1}, {});
#pragma once

#include <cstdint>
#include <string>

#include "reference/error/expected.h"
#include "reference/memory/mr_info.h"
#include "reference/transport/device.h"

namespace mr::testbed {

// Both ends of one RC connection.
struct RcConnection {
  uint32_t a = 0, b = 0;        // endpoints
  uint32_t qp_a = 0, qp_b = 0;  // QPNs
  memory::MrInfo mr_a, mr_b;    // a registered region on each side, remote read and write
};

struct ConnectOptions {
  uint32_t path_mtu = 4096;
  uint64_t region_bytes = 1 << 20;
  uint8_t timeout = 14;   // 4.096 us x 2^14 = 67 ms: verbs' usual; the Ext RTO is its own
  uint8_t retry_cnt = 7;  // base QPs' go-back-N retries
  // DSCP 0, ECT(0): data is ECN-capable, as a RoCE NIC with ECN on sends it, so switches
  // mark instead of only dropping (DCQCN for base QPs, section 26 for Ext).
  uint8_t traffic_class = 0x02;
};

// One end: a device, its protection domain and completion queue, and its endpoint number
// (the first PSN is 0x100 + endpoint).
struct ConnectEnd {
  transport::Device& device;
  uint32_t pd = 0;
  uint32_t cq = 0;
  uint32_t endpoint = 0;
};

// Errors name the end and the verb that failed ("endpoint 1: RTR: ...").
Expected<RcConnection, std::string> connect_rc(const ConnectEnd& a, const ConnectEnd& b,
                                               const ConnectOptions& options);

}  // namespace mr::testbed
