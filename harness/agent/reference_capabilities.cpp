// ReferenceBackend::capabilities: what the reference device is and claims.
#include <utility>

#include "harness/agent/reference_backend.h"
#include "reference/memory/memory_table.h"
#include "reference/transport/ext_qp_state.h"
#include "reference/wire/mxcap.h"

namespace mr::agent {

std::vector<std::string> reference_pics_features() {
  // The features testcases/profiles/reference.pics.json sets to true: what the reference
  // implements (request_dispatcher_test checks that the two lists agree).
  return {"roce.v2",         "ipv4",       "ipv6",          "vlan",
          "rc.send",         "rc.write",   "rc.read",       "rc.atomic",
          "rc.imm",          "rc.inv",     "rc.srq",        "uc.send",
          "uc.write",        "ud.send",    "cnp.np",        "cnp.rp",
          "ext.negotiation", "ext.sack",   "ext.ooo",       "ext.trim",
          "ext.nonfatal",    "ext.resync", "ext.multipath", "ext.pathprobe",
          "ext.adaptive_ev", "ext.credit", "ext.cc",        "ext.secure"};
}

wire::Mxcap reference_mxcap() {
  wire::Mxcap m;  // SACK and OOO, MPR 8
  // Multipath, probes and adaptive selection take their EV sets and port states from the
  // control protocol (modify_qp ev_set, set_port, set_ev_state); trimming, non-fatal errors
  // and RESYNC, congestion control and credits need nothing beyond the block; secure mode
  // takes its keys from modify_qp secure_sa, and without them a QP that agrees it fails INIT
  // to RTR (MR-SE-01), so a peer offers SECURE only when it installs keys.
  m.features = m.features | wire::kMxcapMultipath | wire::kMxcapPathProbe | wire::kMxcapTrim |
               wire::kMxcapAdaptive | wire::kMxcapCc | wire::kMxcapCredit;
  // Informative (section 18): the entries of its sets, N_EV_DEFAULT unless modify_qp gives one.
  m.ev_count = static_cast<uint16_t>(transport::ext::ExtQpParameters{}.ev_set_size);
  m.features2 = m.features2 | wire::kMxcapNonFatal | wire::kMxcapResync | wire::kMxcapSecure;
  // Four planes on one link, as a NIC with four ports to four planes would offer: section
  // 20's spraying across planes and MR-PF-06's plane failure run on the embedded reference.
  m.planes = 4;
  return m;
}

Result<Capabilities> ReferenceBackend::capabilities() {
  std::lock_guard lock(mutex_);
  Capabilities c;
  c.device_name = "metaroce-reference";
  c.device_kind = "reference";
  c.vendor = "metaroce-conformance project";
  c.version = "0.1.0";
  c.mac = options_.mac;
  c.ips = {options_.ipv4.to_string(), node_.ipv6_link_local().to_string()};
  for (const auto& a : options_.ipv6_global) c.ips.push_back(a.to_string());
  for (const auto& entry : node_.gids().entries()) c.gids.push_back({entry.index, entry.gid});
  c.mtus = {256, 512, 1024, 2048, 4096};
  c.limits = {{"max_qp", 0xfffffd},
              {"max_qp_wr", 1U << 20},
              {"max_sge", kMaxSge},
              {"max_cq", 0xffffffff},
              {"max_cqe", 1U << 20},
              {"max_srq_wr", 1U << 20},
              {"max_mr_size", memory::kMaxMrSize},
              {"max_msg_size", uint64_t{1} << 31},
              {"max_rd_atomic", 255},
              {"max_ext_ooo_messages", kReferenceExtOooMessages},
              {"max_mem_transfer", kMaxMemTransfer},
              {"max_poll_timeout_ms", kMaxPollTimeoutMs},
              {"max_line_bytes", kMaxLineBytes}};
  c.pics = reference_pics_features();
  c.mxcap = reference_mxcap().bytes();
  c.time_dilation = options_.time_dilation;
  for (const auto& m : mutants::all_mutants()) {
    c.mutants.push_back({std::string(m.name), std::string(m.clauses), std::string(m.description)});
  }
  return c;
}

}  // namespace mr::agent
