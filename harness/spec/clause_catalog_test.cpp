#include "harness/spec/clause_catalog.h"

#include <gtest/gtest.h>

namespace mr::spec {
namespace {

using nlohmann::ordered_json;

TEST(ClauseCatalog, TheProjectsCatalogLoadsWithLevelsAndFeatures) {
  auto c = ClauseCatalog::load("docs/spec/clauses.json");
  ASSERT_TRUE(c) << c.error();
  const Clause* ps = c->find("MR-PS-05");
  ASSERT_NE(ps, nullptr);
  EXPECT_EQ(ps->level, "MUST");
  EXPECT_FALSE(ps->statement.empty());
  EXPECT_EQ(c->find("MR-XX-99"), nullptr);
  EXPECT_GE(c->clauses().size(), 200U);
  EXPECT_TRUE(c->all_features().contains("rc.read"));
  EXPECT_EQ(c->clauses_json().size(), c->clauses().size());
}

TEST(ClauseCatalog, AMalformedCatalogIsAnErrorNamingTheField) {
  auto e = ClauseCatalog::from_json(
      ordered_json::parse(R"({"clauses": [{"id": "A", "level": "MUST", "statement": "s"},
                                          {"id": "B", "level": 3, "statement": "s"}]})"),
      "c.json");
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error(), "c.json: clauses[1].level: expected a string");
  e = ClauseCatalog::from_json(ordered_json::parse(R"({"clauses": [{"id": "A"}]})"), "c.json");
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error(), "c.json: clauses[0].level: missing");
  e = ClauseCatalog::from_json(
      ordered_json::parse(R"({"clauses": [{"id": "A", "level": "MAY", "statement": "s"},
                                          {"id": "A", "level": "MAY", "statement": "t"}]})"),
      "c.json");
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error(), "c.json: clauses[1].id: A is listed twice");
  EXPECT_FALSE(ClauseCatalog::from_json(ordered_json::parse("[]"), "c.json"));
  EXPECT_EQ(ClauseCatalog::load("/nonexistent.json").error(), "/nonexistent.json: cannot read");
}

}  // namespace
}  // namespace mr::spec
