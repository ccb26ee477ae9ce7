#include "harness/script/parser.h"

#include <gtest/gtest.h>

namespace mr::script {
namespace {

constexpr const char* kExample = R"(# tp: RC-PSN-004            clause: MR-PS-04 MR-PS-05
# pics: rc.send             group: BI
# purpose: a SEND whose PSN is ahead of ePSN draws one PSN-sequence NAK
#          carrying ePSN; later out-of-sequence packets draw no second NAK.
dut qp A = create_qp(type=RC, mtu=1024)
dut post_recv A count=4 len=4096
0      < BTH(opcode=RC_SEND_ONLY, psn=P, ackreq=1)/Raw(load=bytes(64))
+0     > BTH(opcode=RC_ACKNOWLEDGE, psn=P)/AETH(syndrome=ACK, msn=1)
+0     < BTH(opcode=RC_SEND_ONLY, psn=P+2, ackreq=1)/Raw(load=b"\x00\x01abc")
+0~0.1 > none
probe A psn=P+1
)";

TEST(Parser, ParsesTheDesignExample) {
  auto r = parse_script(kExample, "RC-PSN-004.mrt");
  ASSERT_TRUE(r.ok()) << r.diagnostics[0].to_string();
  const Script& s = r.script;
  EXPECT_EQ(s.metadata.at("tp"), "RC-PSN-004");
  EXPECT_EQ(s.metadata.at("clause"), "MR-PS-04 MR-PS-05");
  EXPECT_EQ(s.metadata.at("group"), "BI");
  EXPECT_NE(s.metadata.at("purpose").find("draw no second NAK."), std::string::npos);
  ASSERT_EQ(s.statements.size(), 7U);
  const auto& create = std::get<Command>(s.statements[0]);
  EXPECT_EQ(create.actor, "dut");
  EXPECT_EQ(create.assign, "A");
  EXPECT_EQ(create.name, "create_qp");
  ASSERT_EQ(create.args.size(), 2U);
  EXPECT_EQ(create.args[1].name, "mtu");
  EXPECT_EQ(create.args[1].value.number, 1024U);
  const auto& recv = std::get<Command>(s.statements[1]);
  EXPECT_EQ(recv.target, "A");
  EXPECT_EQ(recv.args.size(), 2U);
  const auto& inject = std::get<PacketLine>(s.statements[2]);
  EXPECT_TRUE(inject.inject);
  EXPECT_FALSE(inject.time.relative);
  ASSERT_EQ(inject.packet.layers.size(), 2U);
  EXPECT_EQ(inject.packet.layers[0].name, "BTH");
  EXPECT_EQ(inject.packet.layers[0].args[0].value.kind, Expr::Kind::kName);
  EXPECT_EQ(inject.packet.layers[1].args[0].value.kind, Expr::Kind::kBytesOfLength);
  const auto& wrong = std::get<PacketLine>(s.statements[4]);
  EXPECT_EQ(wrong.packet.layers[0].args[1].value.kind, Expr::Kind::kBinary);
  EXPECT_EQ(wrong.packet.layers[1].args[0].value.bytes, std::string("\x00\x01"
                                                                    "abc",
                                                                    5));
  const auto& silence = std::get<PacketLine>(s.statements[5]);
  EXPECT_TRUE(silence.packet.none);
  EXPECT_TRUE(silence.time.relative);
  EXPECT_DOUBLE_EQ(*silence.time.end_s, 0.1);
  const auto& probe = std::get<Command>(s.statements[6]);
  EXPECT_EQ(probe.actor, "probe");
  EXPECT_EQ(probe.target, "A");
}

TEST(Parser, MetadataKeysAfterOneSpaceAreKeysButNotInsideFreeText) {
  auto r = parse_script(
      "# tp: X-1 clause: MR-QS-03\n# pics: rc.send group: BV\n"
      "# purpose: the group: field stays text clause: too\ndut qp A = create_qp(type=RC)\n",
      "x.mrt");
  ASSERT_TRUE(r.ok()) << r.diagnostics[0].to_string();
  EXPECT_EQ(r.script.metadata.at("tp"), "X-1");
  EXPECT_EQ(r.script.metadata.at("clause"), "MR-QS-03");
  EXPECT_EQ(r.script.metadata.at("pics"), "rc.send");
  EXPECT_EQ(r.script.metadata.at("group"), "BV");
  EXPECT_EQ(r.script.metadata.at("purpose"), "the group: field stays text clause: too");
}

TEST(Parser, ErrorsNameFileLineColumnAndWhatWasExpected) {
  auto r = parse_script("# tp: X\n# clause: MR-PS-04\n# purpose: p\n0 < BTH(opcode=4,, psn=1)\n",
                        "t.mrt");
  ASSERT_EQ(r.diagnostics.size(), 1U);
  EXPECT_EQ(r.diagnostics[0].to_string(), "t.mrt:4:18: expected a field name in BTH(...), got ','");
}

TEST(Parser, KeepsGoingAfterAnErrorToReportLaterOnes) {
  auto r = parse_script(
      "# tp: X\n# clause: MR-PS-04\n# purpose: p\n0 < BTH(psn=1\n+0 > AETH(syndrome=)\n+0 ? none\n",
      "t.mrt");
  ASSERT_EQ(r.diagnostics.size(), 3U);
  EXPECT_EQ(r.diagnostics[0].pos.line, 4);
  EXPECT_NE(r.diagnostics[0].message.find("expected ',' or ')'"), std::string::npos);
  EXPECT_EQ(r.diagnostics[1].pos.line, 5);
  EXPECT_EQ(r.diagnostics[2].to_string(), "t.mrt:6:4: unexpected character '?'");
}

TEST(Parser, MissingAndUnknownMetadataAreDiagnosed) {
  auto r = parse_script("# tp: X\n# purpos: typo\n0 > none\n", "t.mrt");
  std::vector<std::string> messages;
  for (const auto& d : r.diagnostics) messages.push_back(d.message);
  EXPECT_NE(std::find_if(messages.begin(), messages.end(),
                         [](const std::string& m) {
                           return m.find("unknown metadata key 'purpos'") != std::string::npos;
                         }),
            messages.end());
  EXPECT_NE(std::find(messages.begin(), messages.end(), "missing metadata '# clause: ...'"),
            messages.end());
}

TEST(Parser, KeysThatWouldDoNothingAreUnknown) {
  for (const char* key : {"timeout", "requires"}) {
    const std::string text =
        "# tp: X  clause: MR-PS-01  purpose: p\n# " + std::string(key) + ": 5\n0 > none\n";
    auto r = parse_script(text, "t.mrt");
    ASSERT_EQ(r.diagnostics.size(), 1U) << key;
    EXPECT_EQ(r.diagnostics[0].message.rfind("unknown metadata key '" + std::string(key) + "'", 0),
              0U)
        << r.diagnostics[0].message;
    EXPECT_EQ(r.diagnostics[0].pos.line, 2);
  }
}

// The error lists the keys a test case may use, each of which the parser then accepts.
TEST(Parser, UnknownKeyErrorListsKeysTheParserAccepts) {
  auto r =
      parse_script("# tp: X  clause: MR-PS-01  purpose: p\n# purpos: typo\n0 > none\n", "t.mrt");
  ASSERT_EQ(r.diagnostics.size(), 1U);
  const std::string& m = r.diagnostics[0].message;
  const size_t open = m.find("(known: ");
  ASSERT_NE(open, std::string::npos) << m;
  std::string list = m.substr(open + 8, m.rfind(')') - open - 8);
  std::vector<std::string> keys;
  for (size_t at = 0; at <= list.size();) {
    const size_t comma = std::min(list.find(", ", at), list.size());
    keys.push_back(list.substr(at, comma - at));
    at = comma + 2;
  }
  EXPECT_EQ(keys.size(), 7U) << list;
  for (const std::string& key : keys) EXPECT_TRUE(is_metadata_key(key)) << key;
  EXPECT_FALSE(is_metadata_key("purpos"));
}

TEST(Parser, RejectsInjectingNothingAndBackwardsWindows) {
  auto r = parse_script("# tp: X\n# clause: C\n# purpose: p\n0 < none\n+0.2~0.1 > none\n", "t.mrt");
  ASSERT_EQ(r.diagnostics.size(), 2U);
  EXPECT_NE(r.diagnostics[0].message.find("only '> none'"), std::string::npos);
  EXPECT_NE(r.diagnostics[1].message.find("ends before it starts"), std::string::npos);
}

TEST(Parser, AnAbsoluteTimeBeforeAnEarlierLinesIsRefused) {
  auto r = parse_script(
      "# tp: X\n# clause: C\n# purpose: p\n"
      "0 < BTH(psn=1)\n1.0 > BTH(psn=1)\n+0.2 < BTH(psn=2)\n0.5 > BTH(psn=2)\n"
      "1.0 > none\n* > BTH(psn=3)\n",
      "t.mrt");
  ASSERT_EQ(r.diagnostics.size(), 1U);
  const Diagnostic& d = r.diagnostics[0];
  EXPECT_EQ(d.pos.line, 7);
  EXPECT_EQ(d.message,
            "absolute time 0.5 s is before line 5's 1 s: time never goes back (a relative time "
            "is '+0.5')");
}

TEST(Parser, NumbersMustFitAndStringsMustClose) {
  auto r = parse_script(
      "# tp: X\n# clause: C\n# purpose: p\n0 < BTH(psn=0x1ffffffffffffffff)\n0 < "
      "Raw(load=b\"abc)\n",
      "t.mrt");
  ASSERT_EQ(r.diagnostics.size(), 2U);
  EXPECT_NE(r.diagnostics[0].message.find("too large"), std::string::npos);
  EXPECT_NE(r.diagnostics[1].message.find("not closed"), std::string::npos);
}

TEST(Parser, ParsesWithinLinesAndBoundedLoops) {
  auto r = parse_script(
      "# tp: X\n# clause: C\n# purpose: p\n"
      "*  > within 128 BTH(ackreq=1)\n"
      "repeat max=300 until last.psn == Q+299\n"
      "+0 < BTH(opcode=RC_ACKNOWLEDGE, psn=last.psn)/AETH(syndrome=ACK, msn=0)\n"
      "end\n",
      "t.mrt");
  ASSERT_TRUE(r.ok()) << r.diagnostics[0].to_string();
  ASSERT_EQ(r.script.statements.size(), 4U);
  const auto& within = std::get<PacketLine>(r.script.statements[0]);
  ASSERT_NE(within.within, nullptr);
  EXPECT_EQ(within.within->number, 128U);
  EXPECT_EQ(within.packet.layers[0].name, "BTH");
  const auto& loop = std::get<Command>(r.script.statements[1]);
  EXPECT_EQ(loop.actor, "repeat");
  ASSERT_EQ(loop.args.size(), 3U);
  EXPECT_EQ(loop.args[0].name, "max");
  EXPECT_EQ(loop.args[1].value.text, "last.psn");
  EXPECT_EQ(loop.args[2].value.kind, Expr::Kind::kBinary);
  EXPECT_EQ(std::get<Command>(r.script.statements[3]).actor, "end");
}

TEST(Parser, LoopsMustBeBoundedAndBalanced) {
  auto r = parse_script(
      "# tp: X\n# clause: C\n# purpose: p\nrepeat until last.psn == 3\nend\nend\n"
      "repeat max=2 until last.psn = 3\n+0 > within 2 none\n",
      "t.mrt");
  std::vector<std::string> messages;
  for (const auto& d : r.diagnostics) messages.push_back(d.to_string());
  ASSERT_EQ(messages.size(), 5U) << ::testing::PrintToString(messages);
  EXPECT_NE(messages[0].find("t.mrt:4:8: expected 'max=N'"), std::string::npos);
  EXPECT_NE(messages[1].find("t.mrt:6:1: 'end' without a 'repeat'"), std::string::npos);
  EXPECT_NE(messages[2].find("t.mrt:7:29: expected '=='"), std::string::npos);
  EXPECT_NE(messages[3].find("'> within N none' means nothing"), std::string::npos);
  EXPECT_NE(messages[4].find("t.mrt:7:1: 'repeat' without its 'end'"), std::string::npos);
}

TEST(Parser, LetBindsAScriptNameAndCheckComparesValues) {
  auto r = parse_script(
      "# tp: X\n# clause: C\n# purpose: p\nlet e1 = last.ev\ncheck last.ev != e1\n"
      "check e1 == 0xc101\ncheck distinct [e1, last.ev, 7]\ncheck at_least 2 distinct [e1, 7]\n",
      "t.mrt");
  ASSERT_TRUE(r.ok()) << r.diagnostics[0].to_string();
  ASSERT_EQ(r.script.statements.size(), 5U);
  const auto& least = std::get<Command>(r.script.statements[4]);
  EXPECT_EQ(least.name, "distinct");
  ASSERT_EQ(least.args.size(), 2U);
  EXPECT_EQ(least.args[0].name, "at_least");
  EXPECT_EQ(least.args[0].value.number, 2U);
  const auto& let = std::get<Command>(r.script.statements[0]);
  EXPECT_EQ(let.actor, "let");
  EXPECT_EQ(let.target, "e1");
  EXPECT_EQ(let.args.at(0).value.text, "last.ev");
  const auto& differ = std::get<Command>(r.script.statements[1]);
  EXPECT_EQ(differ.actor, "check");
  EXPECT_EQ(differ.name, "differ");
  EXPECT_EQ(differ.args.at(1).value.text, "e1");
  EXPECT_EQ(std::get<Command>(r.script.statements[2]).name, "equal");
  const auto& distinct = std::get<Command>(r.script.statements[3]);
  EXPECT_EQ(distinct.name, "distinct");
  EXPECT_EQ(distinct.args.at(0).value.items.size(), 3U);
}

TEST(Parser, AssumeTakesTheFormsOfCheck) {
  auto r = parse_script(
      "# tp: X\n# clause: C\n# purpose: p\nassume n < 32639\nassume distinct [e1, e2]\n", "t.mrt");
  ASSERT_TRUE(r.diagnostics.empty()) << r.diagnostics.front().to_string();
  const auto& below = std::get<Command>(r.script.statements[0]);
  EXPECT_EQ(below.actor, "assume");
  EXPECT_EQ(below.name, "below");
  EXPECT_EQ(std::get<Command>(r.script.statements[1]).name, "distinct");
  auto bad = parse_script("# tp: X\n# clause: C\n# purpose: p\nassume n\n", "t.mrt");
  ASSERT_FALSE(bad.diagnostics.empty());
  EXPECT_NE(bad.diagnostics.front().message.find("in 'assume A == B'"), std::string::npos)
      << bad.diagnostics.front().message;
}

TEST(Parser, CheckOrdersValuesWithLessAndGreaterComparisons) {
  auto r = parse_script(
      "# tp: X\n# clause: C\n# purpose: p\n"
      "check last.service_time * 64 <= last.gap_ns + 10000\ncheck e1 >= 7\ncheck e1 < 8\n"
      "check e1 > 6\n",
      "t.mrt");
  ASSERT_TRUE(r.diagnostics.empty()) << r.diagnostics.front().to_string();
  const char* names[] = {"at_most", "at_least", "below", "above"};
  for (size_t i = 0; i < 4; ++i) {
    const auto& c = std::get<Command>(r.script.statements[i]);
    EXPECT_EQ(c.actor, "check");
    EXPECT_EQ(c.name, names[i]);
  }
  auto bad = parse_script("# tp: X\n# clause: C\n# purpose: p\ncheck e1 =< 7\n", "t.mrt");
  ASSERT_FALSE(bad.diagnostics.empty());
  EXPECT_NE(bad.diagnostics.front().message.find("expected ==, !=, <, <=, > or >="),
            std::string::npos);
}

TEST(Parser, LetAndCheckRefuseWhatTheyCannotMean) {
  auto r = parse_script(
      "# tp: X\n# clause: C\n# purpose: p\nlet E1 = 3\nlet last.ev = 3\nlet x 3\n"
      "check e1 = 3\ncheck distinct [e1]\nlet y = 1 2\n",
      "t.mrt");
  std::vector<std::string> messages;
  for (const auto& d : r.diagnostics) messages.push_back(d.to_string());
  ASSERT_EQ(messages.size(), 6U) << ::testing::PrintToString(messages);
  EXPECT_NE(messages[0].find("t.mrt:4:5: let: 'E1' reads as"), std::string::npos);
  EXPECT_NE(messages[1].find("t.mrt:5:5: let: 'last.ev'"), std::string::npos);
  EXPECT_NE(messages[2].find("t.mrt:6:5: expected 'let NAME = EXPR'"), std::string::npos);
  EXPECT_NE(messages[3].find("t.mrt:7:10: expected ==, !=, <, <=, > or >="), std::string::npos);
  EXPECT_NE(messages[4].find("check distinct: the list needs at least two values"),
            std::string::npos);
  EXPECT_NE(messages[5].find("t.mrt:9:11: expected end of line"), std::string::npos);
}

TEST(Parser, ParsesNotBeforeAfterWithin) {
  auto r = parse_script(
      "# tp: X\n# clause: C\n# purpose: p\n"
      "+0 > BTH(psn=Q)\n"
      "*  > within 100 not_before 0.0000664 BTH(psn=Q+100)\n"
      "*  > not_before 0.001 BTH(psn=Q+101)\n",
      "t.mrt");
  ASSERT_TRUE(r.ok()) << r.diagnostics[0].to_string();
  ASSERT_EQ(r.script.statements.size(), 3U);
  EXPECT_FALSE(std::get<PacketLine>(r.script.statements[0]).not_before_s);
  const auto& span = std::get<PacketLine>(r.script.statements[1]);
  ASSERT_NE(span.within, nullptr);
  EXPECT_EQ(span.within->number, 100U);
  ASSERT_TRUE(span.not_before_s);
  EXPECT_DOUBLE_EQ(*span.not_before_s, 0.0000664);
  EXPECT_EQ(span.packet.layers[0].name, "BTH");
  const auto& single = std::get<PacketLine>(r.script.statements[2]);
  EXPECT_EQ(single.within, nullptr);
  EXPECT_DOUBLE_EQ(single.not_before_s.value_or(0), 0.001);
}

TEST(Parser, NotBeforeNeedsSecondsAndAPacket) {
  auto r = parse_script(
      "# tp: X\n# clause: C\n# purpose: p\n"
      "*  > not_before BTH(psn=Q)\n"
      "*  > not_before 0.001 none\n",
      "t.mrt");
  std::vector<std::string> messages;
  for (const auto& d : r.diagnostics) messages.push_back(d.to_string());
  ASSERT_EQ(messages.size(), 2U) << ::testing::PrintToString(messages);
  EXPECT_NE(messages[0].find("t.mrt:4:17: expected the least spacing after 'not_before' in "
                             "seconds"),
            std::string::npos);
  EXPECT_NE(messages[1].find("'> not_before S none' means nothing"), std::string::npos);
}

TEST(Parser, ArgumentsRightAfterTheCommandAreNotADefinition) {
  auto r = parse_script(
      "# tp: X\n# clause: C\n# purpose: p\ndut expect_counter name=icrc_errors delta=1\n"
      "dut qp A = create_qp(type=RC)\n",
      "t.mrt");
  ASSERT_TRUE(r.ok()) << r.diagnostics[0].to_string();
  const auto& counter = std::get<Command>(r.script.statements[0]);
  EXPECT_EQ(counter.name, "expect_counter");
  EXPECT_TRUE(counter.assign.empty());
  ASSERT_EQ(counter.args.size(), 2U);
  EXPECT_EQ(counter.args[0].value.text, "icrc_errors");
  const auto& create = std::get<Command>(r.script.statements[1]);
  EXPECT_EQ(create.assign, "A");
  EXPECT_EQ(create.name, "create_qp");
}

TEST(Parser, PercentagesAreRatesInPartsPerMillion) {
  auto r = parse_script(
      "# tp: X\n# clause: C\n# purpose: p\nimpair dir=dut loss=2% reorder=0.5% ecn=100%\n",
      "t.mrt");
  ASSERT_TRUE(r.ok()) << r.diagnostics[0].to_string();
  const auto& c = std::get<Command>(r.script.statements[0]);
  EXPECT_EQ(c.actor, "impair");
  ASSERT_EQ(c.args.size(), 4U);
  EXPECT_EQ(c.args[1].value.kind, Expr::Kind::kPercent);
  EXPECT_EQ(c.args[1].value.number, 20000U);
  EXPECT_EQ(c.args[2].value.number, 5000U);
  EXPECT_EQ(c.args[3].value.number, 1000000U);
  for (const char* bad : {"101%", "0.00001%", "1.2.3%"}) {
    auto e = parse_script(
        std::string("# tp: X\n# clause: C\n# purpose: p\nimpair loss=") + bad + "\n", "t.mrt");
    ASSERT_EQ(e.diagnostics.size(), 1U) << bad;
    EXPECT_NE(e.diagnostics[0].to_string().find("t.mrt:4:13: percentage"), std::string::npos)
        << e.diagnostics[0].to_string();
  }
}

TEST(Parser, ConnectNamesTheTesterQpThenTheDutQp) {
  auto r = parse_script(
      "# tp: X\n# clause: C\n# purpose: p\ndut qp A = create_qp()\ntester qp T = create_qp()\n"
      "connect T A\n",
      "t.mrt");
  ASSERT_TRUE(r.ok()) << r.diagnostics[0].to_string();
  const auto& c = std::get<Command>(r.script.statements[2]);
  EXPECT_EQ(c.actor, "connect");
  EXPECT_EQ(c.target, "T");
  ASSERT_EQ(c.args.size(), 1U);
  EXPECT_EQ(c.args[0].name, "peer");
  EXPECT_EQ(c.args[0].value.text, "A");
  for (const char* bad : {"connect T\n", "connect\n", "connect T x=1\n"}) {
    auto e = parse_script(std::string("# tp: X\n# clause: C\n# purpose: p\n") + bad, "t.mrt");
    ASSERT_EQ(e.diagnostics.size(), 1U) << bad;
    EXPECT_NE(e.diagnostics[0].to_string().find("expected 'connect TESTER_QP DUT_QP'"),
              std::string::npos)
        << e.diagnostics[0].to_string();
  }
}

TEST(Parser, DeeplyNestedParenthesesAreAnErrorNotAStackOverflow) {
  const std::string header = "# tp: X\n# clause: C\n# purpose: p\n";
  const std::string deep(5000, '(');
  auto r =
      parse_script(header + "0 < BTH(psn=" + deep + "1" + std::string(5000, ')') + ")\n", "t.mrt");
  ASSERT_EQ(r.diagnostics.size(), 1U);
  EXPECT_NE(r.diagnostics[0].to_string().find("nest at most 64 parentheses deep"),
            std::string::npos)
      << r.diagnostics[0].to_string();
  r = parse_script(
      header + "0 < Raw(load=bytes(" + std::string(100, '(') + "1" + std::string(100, ')') + "))\n",
      "t.mrt");
  ASSERT_EQ(r.diagnostics.size(), 1U);
  // 64 deep is allowed.
  r = parse_script(
      header + "0 < BTH(psn=" + std::string(63, '(') + "1" + std::string(63, ')') + ")\n", "t.mrt");
  EXPECT_TRUE(r.ok()) << r.diagnostics[0].to_string();
  // A flat chain builds as deep a tree: bounded too.
  std::string chain = "1";
  for (int i = 0; i < 200000; ++i) chain += "+1";
  r = parse_script(header + "0 < BTH(psn=" + chain + ")\n", "t.mrt");
  ASSERT_EQ(r.diagnostics.size(), 1U);
  EXPECT_NE(r.diagnostics[0].message.find("at most 256 operators"), std::string::npos);
}

}  // namespace
}  // namespace mr::script
