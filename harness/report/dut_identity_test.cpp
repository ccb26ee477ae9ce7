#include "harness/report/dut_identity.h"

#include <gtest/gtest.h>

namespace mr::report {
namespace {

using Json = nlohmann::ordered_json;

// What suite_runner records from the DUT's capabilities.
Json capabilities_identity() {
  return Json::parse(R"({
      "device": {"name": "rxe0", "kind": "verbs", "vendor": "Linux", "version": "6.1.0"},
      "mac": "52:54:00:12:34:56", "ips": ["198.18.0.2", "fe80::1"],
      "gids": [{"index": 0, "gid": "fe80::5054:ff:fe12:3456", "type": "RoCEv2"},
               {"index": 1, "gid": "::ffff:198.18.0.2", "type": "RoCEv2"}]})");
}

TEST(DutIdentity, TheCapabilitiesReadAsLabelledTextNotJson) {
  const auto lines = dut_identity(capabilities_identity());
  ASSERT_EQ(lines.size(), 4U);
  EXPECT_EQ(lines[0].label, "DUT");
  EXPECT_EQ(lines[0].text, "rxe0 (verbs), Linux 6.1.0");
  EXPECT_EQ(lines[1].label, "MAC");
  EXPECT_EQ(lines[1].text, "52:54:00:12:34:56");
  EXPECT_EQ(lines[2].text, "198.18.0.2, fe80::1");
  EXPECT_EQ(lines[3].label, "GIDs");
  EXPECT_EQ(lines[3].text, "0 fe80::5054:ff:fe12:3456 (RoCEv2), 1 ::ffff:198.18.0.2 (RoCEv2)");
  for (const auto& l : lines) {
    EXPECT_EQ(l.text.find_first_of("{}[]\""), std::string::npos) << l.text;
  }
}

TEST(DutIdentity, OneLineForTheSummary) {
  EXPECT_EQ(dut_identity_line(capabilities_identity()),
            "rxe0 (verbs), Linux 6.1.0 · MAC 52:54:00:12:34:56 · IPs 198.18.0.2, fe80::1 · GIDs "
            "0 fe80::5054:ff:fe12:3456 (RoCEv2), 1 ::ffff:198.18.0.2 (RoCEv2)");
  EXPECT_EQ(dut_identity_line(Json{{"name", "reference"}, {"vendor", "MetaRoCE"}}),
            "reference · vendor MetaRoCE");
}

TEST(DutIdentity, ADutThatSaidNothingIsUnknownNotNull) {
  EXPECT_EQ(dut_identity(nullptr).at(0).text, "unknown (it did not say)");
  EXPECT_EQ(dut_identity(Json::object()).at(0).text, "unknown (it did not say)");
  EXPECT_EQ(dut_identity_line(nullptr), "unknown (it did not say)");
}

}  // namespace
}  // namespace mr::report
