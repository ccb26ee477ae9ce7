// expr_text prints what the parser read: every expression round-trips through the parser
// to the same text, with parentheses only where precedence needs them.
#include "harness/script/expr_text.h"

#include <gtest/gtest.h>

#include <string>

#include "harness/script/parser.h"

namespace mr::script {
namespace {

// The value of `psn` (or of Raw's `load`) in the script's only packet line, printed.
std::string printed(const std::string& value, bool load = false) {
  const std::string psn = load ? "P" : value;
  const std::string raw = load ? value : "b\"x\"";
  const std::string text =
      "# tp: T-1\n# clause: MR-AK-01\n# purpose: p\n"
      "dut qp A = create_qp(type=RC)\n0 < BTH(opcode=RC_SEND_ONLY, psn=" +
      psn + ")/Raw(load=" + raw + ")\n";
  auto parsed = parse_script(text, "t.mrt");
  EXPECT_TRUE(parsed.ok()) << parsed.diagnostics[0].to_string();
  const auto* line = std::get_if<PacketLine>(&parsed.script.statements.back());
  if (line == nullptr) return "<no packet line>";
  return expr_text(load ? line->packet.layers[1].args[0].value
                        : line->packet.layers[0].args[1].value);
}

TEST(ExprText, PrintsSymbolsAndSumsAsWritten) {
  EXPECT_EQ(printed("P"), "P");
  EXPECT_EQ(printed("P+1"), "P+1");
  EXPECT_EQ(printed("A.qpn"), "A.qpn");
  EXPECT_EQ(printed("P - 2"), "P-2");
}

TEST(ExprText, KeepsOnlyTheParenthesesPrecedenceNeeds) {
  EXPECT_EQ(printed("P+2*3"), "P+2*3");
  EXPECT_EQ(printed("(P+2)*3"), "(P+2)*3");
  EXPECT_EQ(printed("((P))+1"), "P+1");
  EXPECT_EQ(printed("P-(1+2)"), "P-(1+2)");
  EXPECT_EQ(printed("(P-1)+2"), "P-1+2");
}

TEST(ExprText, PrintsNumbersInDecimalUpToNineAndHexAbove) {
  EXPECT_EQ(printed("7"), "7");
  EXPECT_EQ(printed("0x10"), "0x10");
  EXPECT_EQ(printed("4096"), "0x1000");
}

TEST(ExprText, QuotesByteStringsWithEscapes) {
  EXPECT_EQ(printed(R"(b"ab\x00\"")", true), R"(b"ab\x00\"")");
  EXPECT_EQ(printed("bytes(64)", true), "bytes(0x40)");
  EXPECT_EQ(printed("b\"ab\"*3", true), "b\"ab\"*3");
}

TEST(ExprText, OnlyLiteralsCountAsLiterals) {
  Expr number;
  number.kind = Expr::Kind::kNumber;
  EXPECT_TRUE(is_literal(number));
  Expr symbol;
  symbol.kind = Expr::Kind::kSymbol;
  symbol.text = "P";
  EXPECT_FALSE(is_literal(symbol));
}

}  // namespace
}  // namespace mr::script
