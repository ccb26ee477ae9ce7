#include "harness/analyze/checker_table.h"

#include <array>
#include <cstdio>

#include "harness/analyze/checkers.h"
#include "reference/wire/opcode.h"

namespace mr::analyze {

std::string hex(uint32_t v, int digits) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%0*x", digits, v);
  return buf;
}

namespace {

using wire::OpcodeInfo;

// The packets each checker can report on (CheckerEntry::runs_on).
constexpr bool outside_the_table(const OpcodeInfo* i) { return i == nullptr; }
constexpr bool not_cnp(const OpcodeInfo* i) { return i == nullptr || !i->is(wire::kCnp); }
constexpr bool message_segments(const OpcodeInfo* i) {
  return i && i->is(wire::kPayload) && i->is(wire::kSend | wire::kWrite | wire::kRead);
}
constexpr bool requests(const OpcodeInfo* i) { return i && i->is(wire::kRequest); }
// UC and UD requests are never acknowledged: their AckReq is 0 (MR-UC-01, MR-UD-02).
constexpr bool acknowledged_message_ending_requests(const OpcodeInfo* i) {
  return requests(i) && i->is(wire::kEnd) && i->transport != wire::Transport::kUc &&
         i->transport != wire::Transport::kUd;
}
constexpr bool responses_with_aeth(const OpcodeInfo* i) {
  return i && i->is(wire::kResponse) && i->has(wire::kAeth);
}
constexpr bool acks(const OpcodeInfo* i) { return i && i->is(wire::kAck); }
constexpr bool read_responses(const OpcodeInfo* i) {
  return i && i->is(wire::kResponse) && i->is(wire::kRead);
}
constexpr bool atomic_acknowledges(const OpcodeInfo* i) {
  return i && i->has(wire::kAtomicAckEth) && i->has(wire::kAeth);
}
constexpr bool cnps(const OpcodeInfo* i) { return i && i->is(wire::kCnp); }
constexpr bool has_mxh(const OpcodeInfo* i) { return i && i->has(wire::kMxh); }

// Without runs_on: every packet.
constexpr std::array kTable{
    CheckerEntry{"version", "MR-WF-02", make_version_checker, nullptr, HeaderScope::kEveryVersion},
    CheckerEntry{"reserved-bits", "MR-WF-04", make_reserved_bits_checker},
    CheckerEntry{"padding", "MR-WF-06", make_padding_checker},
    CheckerEntry{"udp-port", "MR-WF-08", make_udp_port_checker, not_cnp,
                 HeaderScope::kEveryVersion},
    CheckerEntry{"opcode", "MR-WF-10", make_opcode_checker, outside_the_table},
    CheckerEntry{"payload-size", "MR-MP-07 MR-MP-08 MR-RD-01", make_payload_size_checker,
                 message_segments},
    CheckerEntry{"icrc", "MR-IC-01", make_icrc_checker, nullptr, HeaderScope::kEveryVersion},
    CheckerEntry{"psn-order", "MR-PS-01 MR-PS-02 MR-PS-10", make_psn_order_checker, requests},
    CheckerEntry{"nak-sequence", "MR-PS-04 MR-PS-05", make_nak_sequence_checker,
                 responses_with_aeth},
    CheckerEntry{"unacked-window", "MR-PS-11", make_unacked_window_checker, requests},
    CheckerEntry{"ack-psn", "MR-AK-02", make_ack_psn_checker, acks},
    CheckerEntry{"msn", "MR-AK-03", make_msn_checker, responses_with_aeth},
    CheckerEntry{"ackreq", "MR-AK-05", make_ackreq_checker, acknowledged_message_ending_requests},
    CheckerEntry{"syndrome", "MR-AK-07", make_syndrome_checker, responses_with_aeth},
    CheckerEntry{"duplicate-ack", "MR-AK-11", make_duplicate_ack_checker, acks},
    CheckerEntry{"ack-format", "MR-AK-14", make_ack_format_checker, acks},
    CheckerEntry{"read-response", "MR-RD-01 MR-RD-02 MR-RD-03 MR-RD-09", make_read_response_checker,
                 read_responses},
    CheckerEntry{"atomic-ack", "MR-AT-06", make_atomic_ack_checker, atomic_acknowledges},
    CheckerEntry{"cnp-format", "MR-CC-01", make_cnp_format_checker, cnps},
    CheckerEntry{"cnp-pacing", "MR-CC-03", make_cnp_pacing_checker, cnps},
    CheckerEntry{"ext-entropy", "MR-MU-02 MR-MU-03", make_ext_entropy_checker, has_mxh,
                 HeaderScope::kExt},
    CheckerEntry{"ext-nak", "MR-NK-01", make_ext_nak_checker, responses_with_aeth,
                 HeaderScope::kEveryVersion},
    CheckerEntry{"ext-window", "MR-SA-09", make_ext_window_checker, responses_with_aeth,
                 HeaderScope::kExt},
    CheckerEntry{"ext-sack-offset", "MR-SA-18", make_ext_sack_offset_checker, nullptr,
                 HeaderScope::kExt},
    CheckerEntry{"ext-retransmission", "MR-SA-04 MR-SA-12", make_ext_retransmission_checker,
                 nullptr, HeaderScope::kExt},
};

}  // namespace

std::span<const CheckerEntry> checker_table() { return kTable; }

}  // namespace mr::analyze
