#include "harness/engine/frame_summary.h"

#include <gtest/gtest.h>

#include "harness/script/parser.h"

namespace mr::engine {
namespace {

// The expected packet in a report has the shape of decode --json, the actual one's: a
// 64-bit value above 2^53 - 1 is a decimal string there, so it is here too.
TEST(ExpectedJson, A64BitFieldAboveTwoToThe53IsADecimalStringAsInDecodeJson) {
  const auto parsed = script::parse_script(
      "# tp: X-1 clause: MR-QS-03\n# purpose: p\n"
      "0 > BTH(opcode=RC_RDMA_WRITE_ONLY, psn=P) / RETH(va=0xffff800000000000, dlen=*)\n",
      "x.mrt");
  ASSERT_TRUE(parsed.ok()) << parsed.diagnostics[0].to_string();
  const auto& line = std::get<script::PacketLine>(parsed.script.statements.at(0));
  SymbolTable symbols;
  symbols.set("P", 5);
  const auto j = expected_json(line.packet, symbols);
  EXPECT_EQ(j["layers"], nlohmann::ordered_json({"BTH", "RETH"}));
  EXPECT_EQ(j["BTH"]["psn"], 5);
  EXPECT_EQ(j["RETH"]["va"], "18446603336221196288");
  EXPECT_EQ(j["RETH"]["dlen"], "*");
}

}  // namespace
}  // namespace mr::engine
