#include "harness/script/command_schema.h"

#include <gtest/gtest.h>

#include "harness/script/parser.h"

namespace mr::script {
namespace {

constexpr const char* kHeader = "# tp: X-1  clause: MR-QS-01\n# purpose: p\n";

std::vector<std::string> diagnostics(const std::string& body) {
  std::vector<std::string> out;
  for (const auto& d : parse_script(kHeader + body, "t.mrt").diagnostics)
    out.push_back(d.to_string());
  return out;
}

testing::AssertionResult one_diagnostic(const std::string& body, const std::string& needle) {
  const auto d = diagnostics(body);
  if (d.size() != 1) return testing::AssertionFailure() << d.size() << " diagnostics for: " << body;
  if (d[0].find(needle) == std::string::npos)
    return testing::AssertionFailure() << "'" << d[0] << "' lacks '" << needle << "'";
  return testing::AssertionSuccess();
}

TEST(CommandSchema, AWellFormedDrivenScriptHasNoDiagnostic) {
  EXPECT_TRUE(diagnostics("dut qp A = create_qp(type=RC, mtu=1024, rq_psn=0xffffff)\n"
                          "tester qp T = create_qp(type=RC, mtu=4096, timeout=14)\n"
                          "connect T A\n"
                          "impair dir=dut loss=2% seed=7\n"
                          "tester post_send T opcode=RDMA_WRITE len=4096 count=4\n"
                          "tester wait T until=idle max_ms=500\n"
                          "impair off\n"
                          "dut expect_mem A len=4096 pattern=T\n"
                          "dut expect_completion A status=SUCCESS opcode=RECV count=1\n"
                          "event drop A dir=tester psn=P+1 tx=1\n"
                          "dut expect_counter name=rcv_errors delta=0\n")
                  .empty());
}

TEST(CommandSchema, AnUnknownCommandSuggestsTheNearestOne) {
  EXPECT_TRUE(one_diagnostic("dut qp A = create_qp(type=RC)\ndut post_sned A\n",
                             "t.mrt:4:1: unknown command 'dut post_sned' (did you mean "
                             "'post_send'?)"));
}

TEST(CommandSchema, AnUnknownArgumentSuggestsTheNearestOne) {
  EXPECT_TRUE(one_diagnostic("dut qp A = create_qp(type=RC)\ndut post_recv A lne=64\n",
                             "t.mrt:4:17: dut post_recv: unknown argument 'lne' (did you mean "
                             "'len'?)"));
}

TEST(CommandSchema, AnUnknownEnumValueIsRefusedWithItsNearestName) {
  EXPECT_TRUE(one_diagnostic(
      "dut qp A = create_qp(type=RC)\ndut expect_completion A status=SUCESS\n",
      "dut expect_completion status: unknown value 'SUCESS' (did you mean 'SUCCESS'?)"));
  EXPECT_TRUE(one_diagnostic("dut qp A = create_qp(type=RC)\ndut post_send A opcode=BOGUS\n",
                             "unknown value 'BOGUS' (one of SEND, SEND_WITH_IMM"));
  EXPECT_TRUE(one_diagnostic("dut qp A = create_qp(type=RD)\n", "unknown value 'RD'"));
}

TEST(CommandSchema, APsnLiteralAbove24BitsIsRefused) {
  EXPECT_TRUE(one_diagnostic("dut qp A = create_qp(type=RC, rq_psn=0x1000000)\n",
                             "rq_psn: 16777216 does not fit (at most 16777215)"));
  EXPECT_TRUE(one_diagnostic("dut qp A = create_qp(type=RC)\nprobe A psn=0x1000000\n",
                             "probe psn: 16777216 does not fit"));
}

TEST(CommandSchema, ASettingThatWouldWrapInItsFieldIsRefused) {
  // The tester's timeout is 5 bits wide (IBTA 9.7.6.1.3): 256 would have become 0.
  EXPECT_TRUE(one_diagnostic("tester qp T = create_qp(type=RC, timeout=256)\n",
                             "tester create_qp timeout: 256 does not fit (at most 31)"));
  EXPECT_TRUE(one_diagnostic("dut qp A = create_qp(mtu=1000)\n", "1000 is not a path MTU"));
}

TEST(CommandSchema, AQpNamedBeforeItsDefinitionIsRefused) {
  EXPECT_TRUE(one_diagnostic("dut post_recv B\n", "no DUT QP named 'B' before this line"));
  EXPECT_TRUE(one_diagnostic("dut qp A = create_qp()\nconnect T A\n",
                             "connect: no tester QP named 'T' before this line"));
  EXPECT_TRUE(one_diagnostic("dut qp A = create_qp()\ndut expect_mem A len=4 pattern=Q\n",
                             "pattern: no QP named 'Q' before this line"));
  EXPECT_TRUE(one_diagnostic("dut qp A = create_qp()\ndut qp A = create_qp()\n",
                             "dut qp A: the name is taken"));
}

TEST(CommandSchema, ValuesOfTheWrongKindAreRefused) {
  EXPECT_TRUE(one_diagnostic("impair dir=dut loss=2\n", "loss: expected a percentage"));
  EXPECT_TRUE(
      one_diagnostic("dut qp A = create_qp()\ndut write_mem A data=4\n", "data: expected bytes"));
  EXPECT_TRUE(one_diagnostic("dut qp A = create_qp()\ndut post_recv A len=b\"x\"\n",
                             "len: expected a number"));
  EXPECT_TRUE(one_diagnostic("dut qp A = create_qp(access=READ_WRIT)\n", "expected ALL, NONE"));
}

TEST(CommandSchema, RequiredAndRepeatedArgumentsAreChecked) {
  EXPECT_TRUE(one_diagnostic("dut expect_counter name=x\n", "needs delta="));
  EXPECT_TRUE(one_diagnostic("dut qp A = create_qp()\nevent drop A psn=1\n", "needs dir="));
  EXPECT_TRUE(
      one_diagnostic("dut qp A = create_qp()\ndut post_recv A len=1 len=2\n", "len= given twice"));
}

TEST(CommandSchema, EveryProblemOfAFileIsReportedNotOnlyTheFirst) {
  const auto d = diagnostics(
      "dut qp A = create_qp(type=RX, mtu=100)\n"
      "dut post_recv A lne=1 count=b\"\"\n"
      "dut expect_completion A status=SUCESS\n");
  ASSERT_EQ(d.size(), 5U);
  EXPECT_NE(d[0].find(":3:"), std::string::npos);
  EXPECT_NE(d[4].find(":5:"), std::string::npos);
}

TEST(CommandSchema, DefinitionsAndPlainCommandsKeepTheirShape) {
  EXPECT_TRUE(one_diagnostic("dut qp A = post_recv()\n", "is not a definition"));
  EXPECT_TRUE(one_diagnostic("impair sideways\n", "unexpected 'sideways'"));
  EXPECT_EQ(find_command("dut", "create_qp")->arg("rq_psn")->max, 0xffffffU);
  EXPECT_EQ(find_command("dut", "nothing"), nullptr);
}

TEST(LayerSchema, APacketLineOfKnownLayersFieldsAndNamesHasNoDiagnostic) {
  EXPECT_TRUE(diagnostics("0 < BTH(opcode=RC_SEND_ONLY, psn=0xffffff, ackreq=1)/Raw(load=b\"x\")\n"
                          "+0 > BTH(opcode=RC_ACKNOWLEDGE, psn=P+1)/AETH(syndrome=ACK, msn=*)\n"
                          "+0 < IP(src=\"198.18.0.1\")/UDP(chksum=None)/BTH(opcode=CNP)\n")
                  .empty());
}

TEST(LayerSchema, UnknownLayersFieldsAndNamesSuggestTheNearestOne) {
  EXPECT_TRUE(
      one_diagnostic("0 < BHT(psn=1)\n", "t.mrt:3:5: unknown layer 'BHT' (did you mean 'BTH'?)"));
  EXPECT_TRUE(one_diagnostic("0 < BTH(pns=1)\n",
                             "t.mrt:3:9: BTH has no field 'pns' (did you mean 'psn'?)"));
  EXPECT_TRUE(
      one_diagnostic("0 < BTH(opcode=RC_SEND_ONYL)\n",
                     "BTH opcode: unknown name 'RC_SEND_ONYL' (did you mean 'RC_SEND_ONLY'?)"));
  EXPECT_TRUE(one_diagnostic("0 > BTH(psn=1)/AETH(syndrome=NAK_PSN_SEQUENCE_EROR)\n",
                             "did you mean 'NAK_PSN_SEQUENCE_ERROR'?"));
}

TEST(LayerSchema, ALiteralThatDoesNotFitItsFieldIsRefusedButAComputedPsnWraps) {
  EXPECT_TRUE(one_diagnostic("0 < BTH(psn=0x1000000)\n",
                             "t.mrt:3:13: BTH psn: 16777216 does not fit in 24 bits (at most "
                             "16777215)"));
  EXPECT_TRUE(one_diagnostic("0 < BTH(psn=1, padcount=4)\n", "padcount: 4 does not fit in 2 bits"));
  EXPECT_TRUE(diagnostics("0 < BTH(psn=0xffffff + 1)\n").empty());
}

TEST(LayerSchema, ExtLayersAndASackedListOfPsnsAreKnown) {
  EXPECT_EQ(diagnostics("dut qp A = create_qp(type=RC, ext=1)\n"
                        "0 < BTH(opcode=RC_SEND_ONLY, psn=P)/MXH(ar=1, ev=7, msn=1, rqsn=1)\n"
                        "+0 > BTH(psn=P)/AETH(syndrome=ACK)/SACKETH(ara=1, sacked=[P+2, P+5])\n"
                        "+0 > BTH(psn=P)/AETH(syndrome=ACK)/SACKETH(sacked=[], mpr=*)\n"
                        "+0 < BTH(opcode=RC_CREDIT)/CRETH(credit=4)\n"
                        "+0 < BTH(opcode=RC_RESYNC)/MXH(msn=1)/RSYNETH(code=1, count=2)\n"),
            std::vector<std::string>{});
}

TEST(LayerSchema, AListIsOnlyForSacked) {
  EXPECT_TRUE(
      one_diagnostic("0 > SACKETH(sacked=P+1)\n",
                     "t.mrt:3:21: SACKETH sacked: expected a list of PSNs such as [P+2, P+5]"));
  EXPECT_TRUE(
      one_diagnostic("0 < BTH(psn=[1])\n", "BTH psn: a list is only for SACKETH sacked=[...]"));
  EXPECT_TRUE(one_diagnostic("dut qp A = create_qp(mtu=[1024])\n",
                             "create_qp mtu: a list is not a value here"));
}

TEST(LayerSchema, AListItemIsAPsn) {
  EXPECT_TRUE(one_diagnostic("0 > SACKETH(sacked=[P+1, b\"x\"])\n",
                             "t.mrt:3:26: SACKETH sacked: a list item is a PSN, such as P+2"));
  EXPECT_TRUE(one_diagnostic("0 > SACKETH(sacked=[[1]])\n", "a list item is a PSN"));
  EXPECT_TRUE(one_diagnostic("0 > SACKETH(sacked=[*])\n", "a list item is a PSN"));
  EXPECT_TRUE(one_diagnostic("0 > SACKETH(sacked=[0x1000000])\n",
                             "16777216 is not a PSN (at most 16777215)"));
}

TEST(LayerSchema, SackedAndBitmapTogetherAreOneFieldGivenTwice) {
  EXPECT_TRUE(one_diagnostic("0 < SACKETH(sacked=[1], bitmap=3)\n",
                             "SACKETH: give sacked=[...] or bitmap=..., not both"));
}

TEST(LayerSchema, AnUnclosedOrOverlongListIsAParseError) {
  EXPECT_TRUE(one_diagnostic("0 > SACKETH(sacked=[1, 2)\n", "expected ',' or ']' in a list"));
  std::string many = "0 > SACKETH(sacked=[";
  for (int i = 0; i < 4097; ++i) many += std::to_string(i) + ",";
  many += "])\n";
  EXPECT_TRUE(one_diagnostic(many, "a list holds at most 4096 values"));
}

}  // namespace
}  // namespace mr::script
