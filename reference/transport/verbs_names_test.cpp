#include "reference/transport/verbs_names.h"

#include <gtest/gtest.h>

#include "reference/transport/qp_state.h"
#include "reference/transport/work_request.h"

namespace mr::transport {
namespace {

TEST(VerbsNames, EverySendOpcodeNameRoundTripsToItsEnumValue) {
  const auto names = send_opcode_names();
  for (size_t i = 0; i < names.size(); ++i) {
    SendOpcode op{};
    ASSERT_TRUE(send_opcode_from_string(names[i], op)) << names[i];
    EXPECT_EQ(static_cast<size_t>(op), i);
    EXPECT_EQ(to_string(op), names[i]);
  }
  EXPECT_EQ(to_string(SendOpcode::kFetchAdd), "ATOMIC_FETCH_AND_ADD");
}

TEST(VerbsNames, StatusAndCompletionOpcodeNamesFollowTheirEnums) {
  EXPECT_EQ(to_string(WcStatus::kSuccess), "SUCCESS");
  EXPECT_EQ(to_string(WcStatus::kGeneralError), "GENERAL_ERR");
  EXPECT_EQ(to_string(WcStatus::kRemoteAbortError), "REM_ABORT_ERR");
  EXPECT_EQ(wc_status_names().back(), "REM_ABORT_ERR");
  EXPECT_EQ(to_string(WcOpcode::kRecvRdmaWithImm), "RECV_RDMA_WITH_IMM");
  EXPECT_EQ(wc_opcode_names().back(), "RECV_RDMA_WITH_IMM");
}

TEST(VerbsNames, QpStateAndTypeNamesRoundTrip) {
  for (std::string_view n : qp_state_names()) {
    QpState s{};
    ASSERT_TRUE(qp_state_from_string(n, s)) << n;
    EXPECT_EQ(to_string(s), n);
  }
  for (std::string_view n : qp_type_names()) {
    QpType t{};
    ASSERT_TRUE(qp_type_from_string(n, t)) << n;
    EXPECT_EQ(to_string(t), n);
  }
  QpState s{};
  EXPECT_FALSE(qp_state_from_string("SQE", s));
}

}  // namespace
}  // namespace mr::transport
