// File: framing_decisions.h
//
// The decisions the packet factory makes while it frames a packet (MR-WF, MR-IC): whether
// the VLAN tag goes out and with which PCP, the IPv6 traffic class and hop limit, the BTH
// version, the UDP source port, BECN on data, the pad bytes and the ICRC's byte order.
// Built once from the mutants (decision_rows.cpp holds the mutant -> decision table).
#pragma once

#include <span>

#include "reference/transport/decision_table.h"

namespace mr::transport {

struct FramingDecisions {
  Decision sends_vlan_tag{true};                // MR-WF-16
  Decision vlan_pcp_from_address_vector{true};  // MR-WF-16
  Decision ipv6_traffic_class_from_av{true};
  Decision ipv6_hop_limit_from_av{true};
  Decision bth_version_zero{true};        // MR-WF-02
  Decision udp_source_port_stable{true};  // one flow, one source port
  Decision becn_only_on_cnp{true};
  Decision pad_bytes_zero{true};
  Decision icrc_little_endian_on_wire{true};
  Decision icrc_covers_ext_headers{true};  // MR-EX-08: MXH, SACKETH and the rest

  static std::span<const DecisionRow<FramingDecisions>> rows();
  bool operator==(const FramingDecisions&) const = default;
};

}  // namespace mr::transport
