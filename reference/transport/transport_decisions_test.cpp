#include "reference/transport/transport_decisions.h"

#include <gtest/gtest.h>

#include <map>
#include <vector>

namespace mr::transport {
namespace {

using mutants::Mutant;

// Every table's rows, as (mutant, "Table") pairs.
template <class D>
void collect(std::string_view table, std::multimap<Mutant, std::string_view>& into) {
  for (const auto& row : D::rows()) into.emplace(row.mutant, table);
}

std::multimap<Mutant, std::string_view> every_row() {
  std::multimap<Mutant, std::string_view> rows;
  collect<FramingDecisions>("FramingDecisions", rows);
  collect<ReceiveDecisions>("ReceiveDecisions", rows);
  collect<RequesterDecisions>("RequesterDecisions", rows);
  collect<ResponderDecisions>("ResponderDecisions", rows);
  collect<CompleterDecisions>("CompleterDecisions", rows);
  collect<DatagramDecisions>("DatagramDecisions", rows);
  collect<CompletionDecisions>("CompletionDecisions", rows);
  collect<CongestionDecisions>("CongestionDecisions", rows);
  return rows;
}

TEST(TransportDecisions, NoMutantsMeansTheCorrectDevice) {
  EXPECT_EQ(TransportDecisions::from({}), TransportDecisions{});
}

TEST(TransportDecisions, EveryMutantHasExactlyOneDecisionRow) {
  const auto rows = every_row();
  for (const auto& m : mutants::all_mutants()) {
    EXPECT_EQ(rows.count(m.id), 1U) << m.name << " must be one row of one decisions table";
  }
}

TEST(TransportDecisions, EachMutantChangesTheDecisionsItNames) {
  for (const auto& m : mutants::all_mutants()) {
    mutants::MutantSet set;
    set.enable(m.id);
    EXPECT_NE(TransportDecisions::from(set), TransportDecisions{})
        << m.name << ": its row must give the broken value, not the default";
  }
}

}  // namespace
}  // namespace mr::transport
