// File: checkers.h
//
// The factory of every checker (one file each, named after the factory). The table in
// checker_table.cpp lists them with their clauses; unit tests make them one at a time.
#pragma once

#include <memory>

#include "harness/analyze/checker.h"

namespace mr::analyze {

std::unique_ptr<Checker> make_version_checker();             // MR-WF-02
std::unique_ptr<Checker> make_reserved_bits_checker();       // MR-WF-04
std::unique_ptr<Checker> make_padding_checker();             // MR-WF-06
std::unique_ptr<Checker> make_udp_port_checker();            // MR-WF-08
std::unique_ptr<Checker> make_opcode_checker();              // MR-WF-10
std::unique_ptr<Checker> make_payload_size_checker();        // MR-MP-07/08, MR-RD-01
std::unique_ptr<Checker> make_icrc_checker();                // MR-IC-01
std::unique_ptr<Checker> make_psn_order_checker();           // MR-PS-01/02/10
std::unique_ptr<Checker> make_nak_sequence_checker();        // MR-PS-04/05
std::unique_ptr<Checker> make_unacked_window_checker();      // MR-PS-11
std::unique_ptr<Checker> make_ack_psn_checker();             // MR-AK-02
std::unique_ptr<Checker> make_msn_checker();                 // MR-AK-03
std::unique_ptr<Checker> make_ackreq_checker();              // MR-AK-05
std::unique_ptr<Checker> make_syndrome_checker();            // MR-AK-07
std::unique_ptr<Checker> make_duplicate_ack_checker();       // MR-AK-11
std::unique_ptr<Checker> make_ack_format_checker();          // MR-AK-14
std::unique_ptr<Checker> make_read_response_checker();       // MR-RD-01/02/03/09
std::unique_ptr<Checker> make_atomic_ack_checker();          // MR-AT-06
std::unique_ptr<Checker> make_cnp_format_checker();          // MR-CC-01
std::unique_ptr<Checker> make_cnp_pacing_checker();          // MR-CC-03
std::unique_ptr<Checker> make_ext_entropy_checker();         // MR-MU-02/03
std::unique_ptr<Checker> make_ext_nak_checker();             // MR-NK-01
std::unique_ptr<Checker> make_ext_window_checker();          // MR-SA-09
std::unique_ptr<Checker> make_ext_sack_offset_checker();     // MR-SA-18
std::unique_ptr<Checker> make_ext_retransmission_checker();  // MR-SA-04/12

}  // namespace mr::analyze
