// File: entropy_check.h
//
// The implicit checks of an Ext connection's entropy (spec section 20), judged on every
// packet the DUT sends with TVer 1, as the destination QP and the ICRC are on every packet:
//   - a packet with an MXH is sent with an entry of the QP's EV set: its EV is one of the
//     set's (the one create_qp gave, else section 20.1's default, MR-MU-11) and its plane is
//     that entry's (MR-MU-10, when the set was given: a default set's planes depend on the
//     device's plane count);
//   - an ACK or NAK (no MXH) leaves with an EV of the set, as its UDP source port (EV mode
//     UDP) or in its flow label (FLOW).
// That a packet's UDP port encodes its MXH EV (MR-MU-02/03) needs no set: the trace checker
// harness/analyze/ext_entropy_checker.cpp judges it, in `run` and `analyze` alike.
// Computed here, not taken from the reference's selector: the judge must not share the
// implementation's arithmetic.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/protocol/dut_messages.h"
#include "reference/wire/frame_decoder.h"

namespace mr::engine {

// The EV set the harness expects a DUT QP to send with.
struct ExpectedEvSet {
  std::vector<protocol::EvEntry> entries;
  bool planes_known = false;  // false for a default set: planes follow the device's count
};

// Section 20.1's default set of the QP `qpn`: `count` (N_EV_DEFAULT) entries
// EV_i = 0xC000 | ((16 x qpn + i) mod 2^14), planes not known here.
ExpectedEvSet default_ev_set(uint32_t qpn, uint32_t count);

struct EntropyProblem {
  std::string field;  // "MXH.ev", "MXH.plane", "UDP.sport", "IPv6.fl"
  std::string expected;
  std::string actual;
  std::string clause;  // MR-MU-..
};

// What is wrong with the entropy of `roce`, a packet the DUT sent on an Ext connection
// (none for a packet with TVer 0: that is MR-EX-04's to judge, or a base-mode QP's).
std::vector<EntropyProblem> entropy_problems(const ExpectedEvSet& set,
                                             const wire::DecodedRoce& roce);

}  // namespace mr::engine
