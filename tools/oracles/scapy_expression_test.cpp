#include "tools/oracles/scapy_expression.h"

#include <gtest/gtest.h>

#include <string>
#include <variant>

#include "harness/script/parser.h"

namespace mr::oracles {
namespace {

Connection connection() {
  Connection c;
  c.base.tester_mac = *wire::MacAddress::parse("02:00:00:00:00:01");
  c.base.dut_mac = *wire::MacAddress::parse("02:00:00:00:00:02");
  c.base.tester_ip = *wire::Ipv4Address::parse("198.18.0.1");
  c.base.dut_ip = *wire::Ipv4Address::parse("198.18.0.2");
  c.base.dut_qpn = 0x000123;
  c.base.tester_qpn = 0x000456;
  return c;
}

// The first packet line of a one-line test case.
script::PacketLine packet_line(const std::string& line) {
  auto parsed =
      script::parse_script("# tp: X-1  clause: MR-WF-01\n# purpose: p\n" + line + "\n", "t.mrt");
  EXPECT_TRUE(parsed.ok()) << (parsed.ok() ? "" : parsed.diagnostics[0].to_string());
  for (auto& st : parsed.script.statements) {
    if (auto* l = std::get_if<script::PacketLine>(&st)) return std::move(*l);
  }
  ADD_FAILURE() << "no packet line in: " << line;
  return {};
}

TEST(ScapyExpression, BytesLiteralsEscapeQuotesBackslashesAndNonPrintables) {
  script::Expr e;
  e.kind = script::Expr::Kind::kBytes;
  e.bytes = std::string("a\"\\\x00\xff", 5);
  auto text = python_text(e, engine::SymbolTable{});
  ASSERT_TRUE(text);
  EXPECT_EQ(*text, R"(b"a\"\\\x00\xff")");
}

TEST(ScapyExpression, InjectedLineWritesOutWhatTheEngineFillsAndKeepsSymbolArithmetic) {
  engine::SymbolTable symbols;
  symbols.set("P", 0xfffffe);
  auto line = packet_line("0 < BTH(opcode=RC_SEND_ONLY, psn=P+2)/Raw(load=b\"abc\")");
  auto c = scapy_case(line, symbols, connection());
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->scapy,
            "Ether(dst=\"02:00:00:00:00:02\", src=\"02:00:00:00:00:01\")/"
            "IP(src=\"198.18.0.1\", dst=\"198.18.0.2\", flags=0x2, id=0x0)/"
            "UDP(sport=0xc000, chksum=0x0)/"
            "BTH(opcode=RC_SEND_ONLY, psn=(0xfffffe + 0x2), dqpn=0x123, padcount=0x1)/"
            "Raw(load=b\"abc\")/Raw(load=bytes(0x1))");
  // Ether 14 + IP 20 + UDP 8 + BTH 12 + 3 payload + 1 pad + ICRC 4; the PSN wrapped to 0.
  ASSERT_EQ(c->bytes.size(), 62U);
  EXPECT_EQ(c->bytes[42 + 9] | c->bytes[42 + 10] | c->bytes[42 + 11], 0);
}

TEST(ScapyExpression, ExpectedLineIsTheDutsPacketWithWildcardsLeftOutAndRawLenAsZeros) {
  auto line = packet_line("* > BTH(opcode=RC_SEND_ONLY, psn=*, icrc=*)/Raw(len=2)");
  auto c = scapy_case(line, engine::SymbolTable{}, connection());
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->scapy,
            "Ether(dst=\"02:00:00:00:00:01\", src=\"02:00:00:00:00:02\")/"
            "IP(src=\"198.18.0.2\", dst=\"198.18.0.1\", flags=0x2, id=0x0)/"
            "UDP(sport=0xc123, chksum=0x0)/"
            "BTH(opcode=RC_SEND_ONLY, dqpn=0x456, padcount=0x2)/"
            "Raw(load=bytes(0x2))/Raw(load=bytes(0x2))");
  EXPECT_EQ(c->bytes.size(), 14U + 20 + 8 + 12 + 2 + 2 + 4);
}

TEST(ScapyExpression, UnboundSymbolIsAnErrorNamingIt) {
  auto line = packet_line("0 < BTH(opcode=RC_SEND_ONLY, psn=Z)");
  auto c = scapy_case(line, engine::SymbolTable{}, connection());
  ASSERT_FALSE(c);
  EXPECT_NE(c.error().message.find("'Z'"), std::string::npos) << c.error().message;
}

}  // namespace
}  // namespace mr::oracles
