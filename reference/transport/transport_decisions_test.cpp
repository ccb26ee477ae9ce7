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
  collect<ExtensionDecisions>("ExtensionDecisions", rows);
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

// Each decision of a table, read once, notes its own mutant in the log and no other.
template <class D>
void expect_each_read_notes_its_mutant(D (*pick)(const TransportDecisions&)) {
  for (const auto& row : D::rows()) {
    DecisionLog log;
    const TransportDecisions all = TransportDecisions::from({}, &log);
    const D d = pick(all);  // a copy, as the packet factory keeps one: it notes into the log too
    EXPECT_TRUE(log.consulted().empty()) << "nothing is read yet";
    [[maybe_unused]] const bool value = d.*row.decision;
    EXPECT_EQ(log.consulted(), std::vector<Mutant>{row.mutant}) << mutants::info(row.mutant).name;
  }
}

TEST(TransportDecisions, ReadingADecisionNotesItsMutantInTheLog) {
  expect_each_read_notes_its_mutant<FramingDecisions>([](const auto& t) { return t.framing; });
  expect_each_read_notes_its_mutant<ReceiveDecisions>([](const auto& t) { return t.receive; });
  expect_each_read_notes_its_mutant<RequesterDecisions>([](const auto& t) { return t.requester; });
  expect_each_read_notes_its_mutant<ResponderDecisions>([](const auto& t) { return t.responder; });
  expect_each_read_notes_its_mutant<CompleterDecisions>([](const auto& t) { return t.completer; });
  expect_each_read_notes_its_mutant<DatagramDecisions>([](const auto& t) { return t.datagram; });
  expect_each_read_notes_its_mutant<CompletionDecisions>(
      [](const auto& t) { return t.completion; });
  expect_each_read_notes_its_mutant<CongestionDecisions>(
      [](const auto& t) { return t.congestion; });
  expect_each_read_notes_its_mutant<ExtensionDecisions>([](const auto& t) { return t.extension; });
}

TEST(TransportDecisions, WithoutALogNothingIsNoted) {
  DecisionLog log;
  const TransportDecisions d = TransportDecisions::from({});
  EXPECT_TRUE(static_cast<bool>(d.receive.checks_icrc));
  EXPECT_TRUE(log.consulted().empty());
}

TEST(TransportDecisions, AMutatedDecisionReadsAsTheBrokenValueAndIsNoted) {
  DecisionLog log;
  mutants::MutantSet set;
  set.enable(Mutant::kIcrcNotChecked);
  const TransportDecisions d = TransportDecisions::from(set, &log);
  EXPECT_FALSE(static_cast<bool>(d.receive.checks_icrc));
  EXPECT_TRUE(log.consulted(Mutant::kIcrcNotChecked));
}

}  // namespace
}  // namespace mr::transport
