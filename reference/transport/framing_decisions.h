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
  bool sends_vlan_tag = true;                // MR-WF-16
  bool vlan_pcp_from_address_vector = true;  // MR-WF-16
  bool ipv6_traffic_class_from_av = true;
  bool ipv6_hop_limit_from_av = true;
  bool bth_version_zero = true;        // MR-WF-02
  bool udp_source_port_stable = true;  // one flow, one source port
  bool becn_only_on_cnp = true;
  bool pad_bytes_zero = true;
  bool icrc_little_endian_on_wire = true;

  static std::span<const DecisionRow<FramingDecisions>> rows();
  bool operator==(const FramingDecisions&) const = default;
};

}  // namespace mr::transport
