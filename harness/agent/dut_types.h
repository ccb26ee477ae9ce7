// File: dut_types.h
//
// The typed arguments and results of the DUT control protocol's ops, shared by the request
// parser (control_message.h), the backend interface (dut_backend.h) and the reply writer
// (control_reply.h). Work requests, completions and QP attributes are the reference
// transport's verbs-shaped value types (work_request.h, queue_pair.h), so that the
// protocol, the reference backend and a libibverbs backend all speak one vocabulary. The
// protocol's bounds (kMaxSge, kMaxPollTimeoutMs, ...) are in protocol_limits.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/agent/control_vocabulary.h"
#include "reference/transport/address_vector.h"
#include "reference/transport/queue_pair.h"
#include "reference/transport/work_request.h"
#include "reference/wire/address.h"

namespace mr::agent {

struct RegMrArgs {
  uint32_t pd = 0;
  uint64_t length = 0;
  uint32_t access = 0;  // memory::Access bits (ibv_access_flags values)
  std::optional<uint64_t> va;
};

struct MrResult {
  uint32_t lkey = 0;
  uint32_t rkey = 0;
  uint64_t va = 0;
  uint64_t length = 0;
};

struct CreateQpArgs {
  transport::QpInitAttributes init;  // init.type: RC, UC or UD
};

// The address vector as a client gives it: the source MAC is always the device's own, the
// source IP defaults to the device's, and a missing destination MAC is looked up in the
// device's neighbour cache.
struct AvArgs {
  std::optional<wire::MacAddress> dmac;
  transport::IpAddress dip = wire::Ipv4Address{};
  std::optional<transport::IpAddress> sip;
  uint8_t traffic_class = 0;
  uint8_t hop_limit = 64;
  uint32_t flow_label = 0;
  uint16_t udp_sport = 0xc000;
  std::optional<uint16_t> vlan_id;
  uint8_t vlan_prio = 0;
};

struct ModifyQpArgs {
  uint32_t qpn = 0;
  transport::QpAttributes attr;  // only the fields named in mask are meaningful
  uint32_t mask = 0;             // transport::QpAttrMask bits: the keys present
  std::optional<AvArgs> av;      // present exactly when mask has kAttrAddress
};

struct PollCqArgs {
  uint32_t cq = 0;
  uint32_t max = 16;
  uint32_t timeout_ms = 0;  // wait at most this long for the first completion
};

struct MemArgs {
  uint32_t lkey = 0;
  uint64_t va = 0;
  uint64_t length = 0;        // read_mem
  std::vector<uint8_t> data;  // write_mem
};

enum class ObjectKind : uint8_t { kQp, kCq, kSrq, kMr, kPd };

struct Counter {
  std::string name;
  uint64_t value = 0;
};

struct GidInfo {
  uint32_t index = 0;
  wire::Ipv6Address gid;
  std::string type = "RoCEv2";
};

struct MutantDescription {
  std::string name;
  std::string clauses;
  std::string description;
};

struct Capabilities {
  std::string device_name;
  std::string device_kind;  // "reference", "verbs"
  std::string vendor;
  std::string version;
  wire::MacAddress mac;
  std::vector<std::string> ips;
  std::vector<GidInfo> gids;
  std::vector<uint32_t> mtus;
  std::vector<Counter> limits;    // max_qp, max_cq_depth, max_mr_size, ...
  std::vector<std::string> pics;  // PICS feature keys the backend claims
  std::vector<MutantDescription> mutants;
  std::vector<uint8_t> mxcap;  // the MXCAP block the device offers (section 18); empty: none
  // Its clock runs this many times slower than the real one (io::DilatedClock); 1: real time.
  uint32_t time_dilation = 1;
};

}  // namespace mr::agent
