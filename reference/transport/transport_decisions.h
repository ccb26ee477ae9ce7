// File: transport_decisions.h
//
// Every decision of the reference device that a mutant can break, one struct per machine,
// built once when the device is made. The engines read `ctx.decide.responder.<decision>`:
// what a correct device does, named, never the mutant behind it.
//
// Usage:
//   const TransportDecisions decide = TransportDecisions::from(config.mutants);
//   if (decide.receive.checks_icrc && !icrc_ok) drop();
#pragma once

#include "reference/mutants/mutant.h"
#include "reference/transport/completer_decisions.h"
#include "reference/transport/completion_decisions.h"
#include "reference/transport/congestion_decisions.h"
#include "reference/transport/datagram_decisions.h"
#include "reference/transport/extension_decisions.h"
#include "reference/transport/framing_decisions.h"
#include "reference/transport/receive_decisions.h"
#include "reference/transport/requester_decisions.h"
#include "reference/transport/responder_decisions.h"

namespace mr::transport {

struct TransportDecisions {
  FramingDecisions framing;
  ReceiveDecisions receive;
  RequesterDecisions requester;
  ResponderDecisions responder;
  CompleterDecisions completer;
  DatagramDecisions datagram;
  CompletionDecisions completion;
  CongestionDecisions congestion;
  ExtensionDecisions extension;

  // With a log, every decision a mutant can break notes its reads there (decision.h).
  static TransportDecisions from(const mutants::MutantSet& mutants, DecisionLog* log = nullptr) {
    return {decide_from<FramingDecisions>(mutants, log),
            decide_from<ReceiveDecisions>(mutants, log),
            decide_from<RequesterDecisions>(mutants, log),
            decide_from<ResponderDecisions>(mutants, log),
            decide_from<CompleterDecisions>(mutants, log),
            decide_from<DatagramDecisions>(mutants, log),
            decide_from<CompletionDecisions>(mutants, log),
            decide_from<CongestionDecisions>(mutants, log),
            decide_from<ExtensionDecisions>(mutants, log)};
  }
  bool operator==(const TransportDecisions&) const = default;
};

}  // namespace mr::transport
