#include "harness/fleet/json_document.h"

#include <gtest/gtest.h>

namespace mr::fleet {
namespace {

constexpr const char* kText = R"({
  "fleet": "rack",
  "time_limit_min": 5,
  "rows": [
    {"name": "a", "dut": "reference"},
    {
      "name": "b",
      "mutants": ["x",
                  "y"]
    }
  ]
})";

TEST(JsonDocument, EveryValueHasTheLineItStartsOn) {
  auto doc = JsonDocument::parse(kText, "f.json");
  ASSERT_TRUE(doc) << doc.error();
  EXPECT_EQ(doc->line_of("fleet"), 2);
  // A number is read one character past its end, here the line feed: still line 3.
  EXPECT_EQ(doc->line_of("time_limit_min"), 3);
  EXPECT_EQ(doc->line_of("rows"), 4);
  EXPECT_EQ(doc->line_of("rows[0]"), 5);
  EXPECT_EQ(doc->line_of("rows[0].dut"), 5);
  EXPECT_EQ(doc->line_of("rows[1]"), 6);
  EXPECT_EQ(doc->line_of("rows[1].name"), 7);
  EXPECT_EQ(doc->line_of("rows[1].mutants[0]"), 8);
  EXPECT_EQ(doc->line_of("rows[1].mutants[1]"), 9);
  EXPECT_EQ(doc->value()["rows"][1]["mutants"][1], "y");
}

TEST(JsonDocument, AnAbsentMemberHasItsParentsLine) {
  auto doc = JsonDocument::parse(kText, "f.json");
  ASSERT_TRUE(doc) << doc.error();
  EXPECT_EQ(doc->line_of("rows[1].dut"), 6);
  EXPECT_EQ(doc->where("rows[1].dut"), "f.json:6: rows[1].dut");
  EXPECT_EQ(doc->line_of("nothing"), 1);
}

TEST(JsonDocument, AMemberNamedTwiceIsRefusedAtItsLine) {
  auto doc = JsonDocument::parse("{\"rows\": [\n{\"name\": \"a\",\n \"name\": \"b\"}]}", "f.json");
  ASSERT_FALSE(doc);
  EXPECT_EQ(doc.error(),
            "f.json:3: rows[0].name: named twice in one object (JSON keeps only the last)");
}

TEST(JsonDocument, ASyntaxErrorKeepsLineAndColumn) {
  auto doc = JsonDocument::parse("{\n\"a\": 1,\n}", "f.json");
  ASSERT_FALSE(doc);
  EXPECT_NE(doc.error().find("f.json: "), std::string::npos) << doc.error();
  EXPECT_NE(doc.error().find("line 3, column 1"), std::string::npos) << doc.error();
}

TEST(JsonDocument, AMissingFileIsNamed) {
  auto doc = JsonDocument::load("/nonexistent/f.json");
  ASSERT_FALSE(doc);
  EXPECT_EQ(doc.error(), "/nonexistent/f.json: cannot read");
}

}  // namespace
}  // namespace mr::fleet
