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

constexpr std::array kTable{
    CheckerEntry{"version", "MR-WF-02", make_version_checker},
    CheckerEntry{"reserved-bits", "MR-WF-04", make_reserved_bits_checker},
    CheckerEntry{"padding", "MR-WF-06", make_padding_checker},
    CheckerEntry{"udp-port", "MR-WF-08", make_udp_port_checker},
    CheckerEntry{"opcode", "MR-WF-10", make_opcode_checker},
    CheckerEntry{"payload-size", "MR-MP-07 MR-MP-08 MR-RD-01", make_payload_size_checker,
                 wire::kPayload},
    CheckerEntry{"icrc", "MR-IC-01", make_icrc_checker},
    CheckerEntry{"psn-order", "MR-PS-01 MR-PS-02 MR-PS-10", make_psn_order_checker, wire::kRequest},
    CheckerEntry{"nak-sequence", "MR-PS-04 MR-PS-05", make_nak_sequence_checker, wire::kResponse},
    CheckerEntry{"unacked-window", "MR-PS-11", make_unacked_window_checker, wire::kRequest},
    CheckerEntry{"ack-psn", "MR-AK-02", make_ack_psn_checker, wire::kAck},
    CheckerEntry{"msn", "MR-AK-03", make_msn_checker, wire::kResponse},
    CheckerEntry{"ackreq", "MR-AK-05", make_ackreq_checker, wire::kRequest},
    CheckerEntry{"syndrome", "MR-AK-07", make_syndrome_checker, wire::kResponse},
    CheckerEntry{"duplicate-ack", "MR-AK-11", make_duplicate_ack_checker, wire::kAck},
    CheckerEntry{"ack-format", "MR-AK-14", make_ack_format_checker, wire::kAck},
    CheckerEntry{"read-response", "MR-RD-01 MR-RD-02 MR-RD-03 MR-RD-09", make_read_response_checker,
                 wire::kResponse},
    CheckerEntry{"atomic-ack", "MR-AT-06", make_atomic_ack_checker, wire::kResponse},
    CheckerEntry{"cnp-format", "MR-CC-01", make_cnp_format_checker, wire::kCnp},
    CheckerEntry{"cnp-pacing", "MR-CC-03", make_cnp_pacing_checker, wire::kCnp},
};

}  // namespace

std::span<const CheckerEntry> checker_table() { return kTable; }

}  // namespace mr::analyze
