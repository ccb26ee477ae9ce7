#include "reference/transport/framing_decisions.h"

#include "reference/transport/decision_table.h"

namespace mr::transport {
namespace {

using mutants::Mutant;
using D = FramingDecisions;

// One row per mutant: the framing decision it breaks.
constexpr DecisionRow<D> kRows[] = {
    {Mutant::kVlanTagNotSent, &D::sends_vlan_tag, false},
    {Mutant::kVlanPcpZero, &D::vlan_pcp_from_address_vector, false},
    {Mutant::kIpv6TrafficClassZero, &D::ipv6_traffic_class_from_av, false},
    {Mutant::kIpv6HopLimitDefault, &D::ipv6_hop_limit_from_av, false},
    {Mutant::kTverNonzero, &D::bth_version_zero, false},
    {Mutant::kUdpSourcePortChanges, &D::udp_source_port_stable, false},
    {Mutant::kBecnOnData, &D::becn_only_on_cnp, false},
    {Mutant::kPadBytesNonzero, &D::pad_bytes_zero, false},
    {Mutant::kIcrcWrongByteOrder, &D::icrc_little_endian_on_wire, false},
};

}  // namespace

FramingDecisions FramingDecisions::from(const mutants::MutantSet& mutants) {
  return decide_from(mutants, std::span<const DecisionRow<D>>(kRows));
}

}  // namespace mr::transport
