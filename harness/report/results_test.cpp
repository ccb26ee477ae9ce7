// File: results_test.cpp
#include "harness/report/results.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace mr::report {
namespace {

constexpr Verdict N = Verdict::kNone, P = Verdict::kPass, I = Verdict::kInconc, F = Verdict::kFail,
                  E = Verdict::kError, X = Verdict::kNotApplicable;

TEST(Verdict, WorseIsTheTtcn3OrderExhaustively) {
  // Row a, column b, in kAllVerdicts order (none pass inconc fail error n/a): worse(a, b).
  const Verdict expected[6][6] = {
      {N, P, I, F, E, N},  // none
      {P, P, I, F, E, P},  // pass
      {I, I, I, F, E, I},  // inconc
      {F, F, F, F, E, F},  // fail
      {E, E, E, E, E, E},  // error
      {N, P, I, F, E, X},  // not-applicable: the identity
  };
  for (size_t a = 0; a < kAllVerdicts.size(); ++a) {
    for (size_t b = 0; b < kAllVerdicts.size(); ++b) {
      EXPECT_EQ(worse(kAllVerdicts[a], kAllVerdicts[b]), expected[a][b])
          << to_string(kAllVerdicts[a]) << " vs " << to_string(kAllVerdicts[b]);
    }
  }
}

TEST(Verdict, WorseIsCommutativeAssociativeAndNeverImproves) {
  for (Verdict a : kAllVerdicts) {
    for (Verdict b : kAllVerdicts) {
      EXPECT_EQ(worse(a, b), worse(b, a));
      if (a != X && b != X) {
        const Verdict w = worse(a, b);
        EXPECT_TRUE(w == a || w == b);
        EXPECT_EQ(worse(w, a), w);  // only ever getting worse
      }
      for (Verdict c : kAllVerdicts) EXPECT_EQ(worse(worse(a, b), c), worse(a, worse(b, c)));
    }
  }
}

TEST(Verdict, NamesRoundTrip) {
  EXPECT_EQ(to_string(Verdict::kInconc), "inconc");
  EXPECT_EQ(to_string(Verdict::kNotApplicable), "not-applicable");
  for (Verdict v : kAllVerdicts) EXPECT_EQ(verdict_from_string(to_string(v)), v);
  EXPECT_FALSE(verdict_from_string("PASS").has_value());
  EXPECT_FALSE(verdict_from_string("").has_value());
}

RunResult run_of(std::initializer_list<Verdict> verdicts) {
  RunResult run;
  for (Verdict v : verdicts) {
    TestResult t;
    t.verdict = v;
    run.tests.push_back(t);
  }
  return run;
}

TEST(RunResult, CountsListEveryVerdict) {
  const auto counts = run_of({P, P, F, X, I, E, P}).counts();
  ASSERT_EQ(counts.size(), kAllVerdicts.size());
  EXPECT_EQ(counts.at(P), 3);
  EXPECT_EQ(counts.at(F), 1);
  EXPECT_EQ(counts.at(I), 1);
  EXPECT_EQ(counts.at(E), 1);
  EXPECT_EQ(counts.at(X), 1);
  EXPECT_EQ(counts.at(N), 0);
}

TEST(RunResult, TestsWorstFirstPutsWhatNeedsAttentionFirstAndKeepsTheRunsOrder) {
  RunResult run = run_of({P, F, X, I, E, P, F, N});
  for (size_t i = 0; i < run.tests.size(); ++i) run.tests[i].tp_id = "T" + std::to_string(i);
  std::vector<std::string> order;
  for (const TestResult* t : tests_worst_first(run.tests)) order.push_back(t->tp_id);
  EXPECT_EQ(order, (std::vector<std::string>{"T1", "T6", "T4", "T3", "T7", "T0", "T5", "T2"}));
  // Every verdict has its place: no test is left out.
  for (Verdict v : kAllVerdicts) {
    EXPECT_NE(std::find(kVerdictsWorstFirst.begin(), kVerdictsWorstFirst.end(), v),
              kVerdictsWorstFirst.end());
  }
}

TEST(RunResult, CountsWorstFirstListOnlyTheVerdictsSomeTestHas) {
  EXPECT_EQ(run_of({P, F, X, P}).counts_worst_first(),
            (std::vector<std::pair<Verdict, int>>{{F, 1}, {P, 2}, {X, 1}}));
  EXPECT_TRUE(run_of({}).counts_worst_first().empty());
}

TEST(RunResult, OverallIsTheWorstApplicableVerdict) {
  EXPECT_EQ(run_of({}).overall(), N);
  EXPECT_EQ(run_of({X, X}).overall(), X);
  EXPECT_EQ(run_of({P, X}).overall(), P);
  EXPECT_EQ(run_of({P, I, P}).overall(), I);
  EXPECT_EQ(run_of({P, F, I}).overall(), F);
  EXPECT_EQ(run_of({E, F, X}).overall(), E);
  EXPECT_EQ(run_of({N, P}).overall(), P);
  EXPECT_EQ(run_of({N, X}).overall(), N);
}

}  // namespace
}  // namespace mr::report
