// File: credit_share_command.h
//
// `tester expect_credit_share windows=N` (MR-CR-11, spec section 26.7): the tester's QPs in
// credit mode, each with demand towards the DUT, number N_CR_FAIR_QPS, and over each of N
// windows of T_CR_FAIR_WINDOW from now each one's credit limit, as the DUT's grants raised
// it, rises by between (1 - R_CR_FAIR_TOLERANCE) and (1 + R_CR_FAIR_TOLERANCE) of the
// windows's total rise divided among them. The exchange runs meanwhile; the ladder lists
// every window's rises.
#pragma once

#include "harness/engine/test_context.h"
#include "harness/script/ast.h"

namespace mr::engine {

void expect_credit_share(const script::Command& c, TestContext& ctx);

}  // namespace mr::engine
