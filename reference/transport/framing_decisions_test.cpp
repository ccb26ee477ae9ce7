#include "reference/transport/framing_decisions.h"

#include <gtest/gtest.h>

namespace mr::transport {
namespace {

using mutants::Mutant;

TEST(FramingDecisions, NoMutantsMeansTheCorrectFraming) {
  EXPECT_EQ(FramingDecisions::from({}), FramingDecisions{});
}

TEST(FramingDecisions, EachFramingMutantBreaksOneDecision) {
  for (Mutant m :
       {Mutant::kVlanTagNotSent, Mutant::kVlanPcpZero, Mutant::kIpv6TrafficClassZero,
        Mutant::kIpv6HopLimitDefault, Mutant::kTverNonzero, Mutant::kUdpSourcePortChanges,
        Mutant::kBecnOnData, Mutant::kPadBytesNonzero, Mutant::kIcrcWrongByteOrder}) {
    mutants::MutantSet set;
    set.enable(m);
    EXPECT_NE(FramingDecisions::from(set), FramingDecisions{}) << mutants::info(m).name;
  }
}

}  // namespace
}  // namespace mr::transport
