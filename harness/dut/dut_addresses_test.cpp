#include "harness/dut/dut_addresses.h"

#include <gtest/gtest.h>

namespace mr::dut {
namespace {

engine::Pixit veth_pixit() {
  engine::Pixit p;
  p.dut_mac = *wire::MacAddress::parse("02:00:00:00:00:02");
  p.dut_ip = *wire::Ipv4Address::parse("198.18.0.2");
  p.dut_ip6 = wire::Ipv6Address::parse("2001:db8::2");
  p.tester_ip = *wire::Ipv4Address::parse("198.18.0.1");
  p.tester_ip6 = wire::Ipv6Address::parse("2001:db8::1");
  return p;
}

protocol::Capabilities agent_reports(std::string mac, std::vector<std::string> ips) {
  protocol::Capabilities c;
  c.mac = std::move(mac);
  c.ips = std::move(ips);
  return c;
}

const AddressOrigin kNamed{
    .pixit_named = true, .pixit_path = "bed.pixit.json", .dut = "agent://h:1"};
const AddressOrigin kDefault{
    .pixit_named = false, .pixit_path = "veth.pixit.json", .dut = "agent://h:1"};

TEST(DutAddresses, ANamedPixitThatAgreesIsKeptAsItIs) {
  auto p = veth_pixit();
  auto notes = adopt_dut_addresses(
      p, agent_reports("02:00:00:00:00:02", {"198.18.0.2", "fe80::ff:fe00:2", "2001:db8::2"}),
      kNamed);
  ASSERT_TRUE(notes) << notes.error();
  EXPECT_TRUE(notes->empty());
  EXPECT_EQ(p.dut_mac.to_string(), "02:00:00:00:00:02");
}

TEST(DutAddresses, ANamedPixitWithAnotherMacIsRefusedNamingBoth) {
  auto p = veth_pixit();
  auto notes = adopt_dut_addresses(p, agent_reports("52:54:00:12:34:56", {"198.18.0.2"}), kNamed);
  ASSERT_FALSE(notes);
  EXPECT_NE(notes.error().find("--pixit bed.pixit.json: dut.mac is 02:00:00:00:00:02"),
            std::string::npos)
      << notes.error();
  EXPECT_NE(notes.error().find("agent://h:1 reports 52:54:00:12:34:56"), std::string::npos)
      << notes.error();
}

TEST(DutAddresses, ANamedPixitWhoseIpv4TheAgentDoesNotHaveIsRefused) {
  auto p = veth_pixit();
  auto notes = adopt_dut_addresses(
      p, agent_reports("02:00:00:00:00:02", {"198.18.0.9", "2001:db8::2"}), kNamed);
  ASSERT_FALSE(notes);
  EXPECT_NE(notes.error().find("dut.ipv4 is 198.18.0.2"), std::string::npos) << notes.error();
  EXPECT_NE(notes.error().find("reports 198.18.0.9"), std::string::npos) << notes.error();
}

TEST(DutAddresses, ANamedPixitWhoseIpv6TheAgentDoesNotHaveIsRefused) {
  auto p = veth_pixit();
  auto notes = adopt_dut_addresses(p, agent_reports("02:00:00:00:00:02", {"198.18.0.2"}), kNamed);
  ASSERT_FALSE(notes);
  EXPECT_NE(notes.error().find("dut.ipv6 is 2001:db8::2"), std::string::npos) << notes.error();
  EXPECT_NE(notes.error().find("reports none"), std::string::npos) << notes.error();
}

TEST(DutAddresses, ADefaultPixitTakesTheAgentsMacAndAddresses) {
  auto p = veth_pixit();
  auto notes = adopt_dut_addresses(
      p, agent_reports("52:54:00:12:34:56", {"198.18.0.7", "fe80::1:2", "2001:db8::7"}), kDefault);
  ASSERT_TRUE(notes) << notes.error();
  EXPECT_EQ(p.dut_mac.to_string(), "52:54:00:12:34:56");
  EXPECT_EQ(p.dut_ip.to_string(), "198.18.0.7");
  // The tester is global: the DUT's global address, not its link-local one.
  ASSERT_TRUE(p.dut_ip6);
  EXPECT_EQ(p.dut_ip6->to_string(), "2001:db8::7");
  EXPECT_EQ(notes->size(), 3U);
}

TEST(DutAddresses, ADefaultPixitWithoutAReachableIpv6HasNoIpv6Bed) {
  auto p = veth_pixit();
  auto notes = adopt_dut_addresses(p, agent_reports("02:00:00:00:00:02", {"198.18.0.2", "fe80::5"}),
                                   kDefault);
  ASSERT_TRUE(notes) << notes.error();
  EXPECT_FALSE(p.dut_ip6);
  EXPECT_FALSE(p.tester_ip6);
  ASSERT_EQ(notes->size(), 1U);
  EXPECT_NE(notes->front().find("no IPv6 bed"), std::string::npos) << notes->front();
}

TEST(DutAddresses, AnAgentWithoutIpv4IsRefused) {
  auto p = veth_pixit();
  auto notes =
      adopt_dut_addresses(p, agent_reports("02:00:00:00:00:02", {"2001:db8::2"}), kDefault);
  ASSERT_FALSE(notes);
  EXPECT_NE(notes.error().find("no IPv4 address"), std::string::npos) << notes.error();
}

TEST(DutAddresses, AMalformedAgentAddressIsNamed) {
  auto p = veth_pixit();
  auto bad_mac = adopt_dut_addresses(p, agent_reports("02:00", {"198.18.0.2"}), kDefault);
  ASSERT_FALSE(bad_mac);
  EXPECT_NE(bad_mac.error().find("capabilities.mac '02:00'"), std::string::npos) << bad_mac.error();
  auto bad_ip = adopt_dut_addresses(p, agent_reports("02:00:00:00:00:02", {"198.18.0"}), kDefault);
  ASSERT_FALSE(bad_ip);
  EXPECT_NE(bad_ip.error().find("capabilities.ips: '198.18.0'"), std::string::npos)
      << bad_ip.error();
}

}  // namespace
}  // namespace mr::dut
