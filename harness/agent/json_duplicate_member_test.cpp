#include "harness/agent/json_duplicate_member.h"

#include <gtest/gtest.h>

#include <string>

namespace mr::agent {
namespace {

std::optional<std::string> first_duplicate(const std::string& text) {
  DuplicateMemberFinder finder;
  const auto json = nlohmann::json::parse(text, finder.callback(), /*allow_exceptions=*/false);
  EXPECT_FALSE(json.is_discarded()) << text;
  return finder.first();
}

TEST(DuplicateMemberFinder, NamesTheRepeatedKeyByItsPathAtEveryDepth) {
  EXPECT_EQ(first_duplicate(R"({"op":"create_pd","op":"reset"})"), "op");
  EXPECT_EQ(first_duplicate(R"({"attrs":{"av":{"dip":"a","sip":"b","dip":"c"}}})"), "attrs.av.dip");
  EXPECT_EQ(first_duplicate(R"({"wr":{"sg_list":[{"lkey":1},{"lkey":2,"addr":0,"lkey":3}]}})"),
            "wr.sg_list[1].lkey");
  EXPECT_EQ(first_duplicate(R"([[1,2],[3,{"a":[4,5],"b":6,"b":7}]])"), "[1][1].b");
  EXPECT_EQ(first_duplicate(R"({"a":{"x":1,"x":2},"b":1,"b":2})"), "a.x");  // the first one
}

TEST(DuplicateMemberFinder, EqualKeysInDifferentObjectsAreNoDuplicate) {
  EXPECT_EQ(first_duplicate(R"({"wr":{"lkey":1},"lkey":2,"x":{"wr":{"lkey":3}}})"), std::nullopt);
  EXPECT_EQ(first_duplicate(R"({"sg_list":[{"lkey":1},{"lkey":2}],"s":["lkey","lkey"]})"),
            std::nullopt);
  EXPECT_EQ(first_duplicate("[]"), std::nullopt);
}

TEST(DuplicateMemberFinder, TheParseResultIsTheUsualOne) {
  DuplicateMemberFinder finder;
  const auto json = nlohmann::json::parse(R"({"a":[1,{"b":2}],"c":null})", finder.callback(),
                                          /*allow_exceptions=*/false);
  EXPECT_EQ(json, nlohmann::json::parse(R"({"a":[1,{"b":2}],"c":null})"));
}

}  // namespace
}  // namespace mr::agent
