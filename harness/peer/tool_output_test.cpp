// The tools' success output, as ibv_rc_pingpong and perftest 6.06 print it (samples written
// from their printf formats), and the error when it is missing.
#include "harness/peer/tool_output.h"

#include <gtest/gtest.h>

namespace mr::peer {
namespace {

TEST(ToolOutput, PingpongRateLines) {
  const char* out =
      "  local address:  LID 0x0000, QPN 0x000011, PSN 0x4b0c2a, GID ::ffff:198.18.0.2\n"
      "  remote address: LID 0x0000, QPN 0x000012, PSN 0x1a2b3c, GID ::ffff:198.18.0.1\n"
      "163840 bytes in 0.52 seconds = 2.52 Mbit/sec\n"
      "20 iters in 0.52 seconds = 26000.00 usec/iter\n";
  auto r = parse_pingpong_output(out);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r->bytes, 163840U);
  EXPECT_DOUBLE_EQ(r->mbit_per_sec, 2.52);
  EXPECT_EQ(r->iters, 20U);
  auto missing = parse_pingpong_output("Failed status transport retry counter exceeded (12)\n");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().find("bytes in"), std::string::npos) << missing.error();
}

TEST(ToolOutput, PerftestBandwidthTable) {
  const char* out =
      "---------------------------------------------------------------------------------------\n"
      " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]\n"
      " 65536      50               12.34              11.98                0.000192\n"
      "---------------------------------------------------------------------------------------\n";
  auto r = parse_perftest_output(out, true);
  ASSERT_TRUE(r) << r.error();
  EXPECT_TRUE(r->bandwidth);
  ASSERT_EQ(r->row.size(), 5U);
  EXPECT_DOUBLE_EQ(r->row[3], 11.98);
  EXPECT_EQ(r->describe(), "BW average 11.98 MB/sec, 0.000192 Mpps");
}

TEST(ToolOutput, PerftestLatencyTableAndPassiveServer) {
  const char* lat =
      " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    "
      "t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] \n"
      " 2048    50          310.11         912.40       402.33             420.50        "
      "60.20          912.40                  912.40\n";
  auto r = parse_perftest_output(lat, true);
  ASSERT_TRUE(r) << r.error();
  EXPECT_FALSE(r->bandwidth);
  EXPECT_EQ(r->describe(), "t_typical 402.33 usec, t_avg 420.50 usec");

  const char* server =
      " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]\n"
      "---------------------------------------------------------------------------------------\n";
  auto passive = parse_perftest_output(server, false);
  ASSERT_TRUE(passive) << passive.error();
  EXPECT_TRUE(passive->row.empty());
  EXPECT_FALSE(parse_perftest_output(server, true));
  auto none = parse_perftest_output(" Couldn't connect to 198.18.0.3:18515\n", false);
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().find("#bytes"), std::string::npos);
}

}  // namespace
}  // namespace mr::peer
