#include "reference/mutants/mutant.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace mr::mutants {
namespace {

TEST(Mutant, AtLeastFortyWithUniqueNames) {
  std::set<std::string_view> names;
  for (const auto& m : all_mutants()) {
    EXPECT_TRUE(names.insert(m.name).second) << m.name;
    EXPECT_FALSE(m.description.empty()) << m.name;
  }
  EXPECT_GE(names.size(), 40U);
}

TEST(Mutant, EveryMutantNamesAtLeastOneClause) {
  for (const auto& m : all_mutants()) {
    EXPECT_EQ(m.clauses.substr(0, 3), "MR-") << m.name;
  }
}

TEST(Mutant, LookupByNameRoundTrips) {
  for (const auto& m : all_mutants()) {
    auto back = mutant_by_name(m.name);
    ASSERT_TRUE(back);
    EXPECT_EQ(*back, m.id);
  }
  EXPECT_FALSE(mutant_by_name("not-a-mutant"));
}

TEST(Mutant, SetStartsEmptyAndEnables) {
  MutantSet s;
  EXPECT_FALSE(s.any());
  s.enable(Mutant::kWrongMsn);
  EXPECT_TRUE(s.active(Mutant::kWrongMsn));
  EXPECT_FALSE(s.active(Mutant::kNoRnrNak));
}

}  // namespace
}  // namespace mr::mutants
