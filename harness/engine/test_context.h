// File: test_context.h
//
// The state of one running test case: the DUT port, the symbols bound so far, the QPs the
// script created and their tester-side peers, the clock of the last event, and what the
// report will show (failures, packets).
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "harness/engine/bottleneck_port.h"
#include "harness/engine/driven_port.h"
#include "harness/engine/dut_port.h"
#include "harness/engine/entropy_check.h"
#include "harness/engine/fault_port.h"
#include "harness/engine/packet_synthesis.h"
#include "harness/engine/pixit.h"
#include "harness/engine/symbols.h"
#include "harness/protocol/dut_messages.h"
#include "harness/report/results.h"
#include "harness/script/ast.h"
#include "reference/transport/work_request.h"
#include "reference/wire/mxcap.h"

namespace mr::engine {

struct QpBinding {
  uint32_t dut_qpn = 0;
  uint32_t pd = 0;
  uint32_t cq = 0;
  uint32_t lkey = 0;
  uint32_t rkey = 0;
  uint64_t va = 0;
  uint64_t mr_length = 0;
  ConnectionDefaults connection;
  std::string type = "RC";   // RC, UC or UD
  uint32_t tester_qkey = 0;  // UD: the Q_Key of the tester's QP, the DUT's sends default to it
  std::optional<uint16_t> dut_udp_sport;  // the first one the DUT used (MR-WF-08: it never changes)
  uint32_t mtu = 1024;                    // the path MTU the DUT's QP was given
  std::string tester_qp;                  // the tester QP connected to it (`connect T A`), if any
  ExpectedEvSet ev_set;  // an Ext connection's: its DUT packets' EVs come from it (section 20)
  // The MXCAP block offered in the tester's name at INIT to RTR when it allows extension
  // mode: a tester QP connected to this one offers the same (tester_commands.cpp).
  std::optional<wire::Mxcap> tester_mxcap;
};

// A tester QP of the script (`tester qp T = create_qp(...)`): a reference QP of the tester's
// ReferencePeer once `connect T A` has given it the QPN the DUT's QP A was pointed at.
struct TesterQp {
  std::string dut_qp;  // the DUT QP it is connected to; "" before `connect`
  uint32_t qpn = 0;    // = that QP's tester QPN
  uint32_t cq = 0;
  uint32_t lkey = 0;
  uint32_t rkey = 0;
  uint64_t va = 0;
  uint64_t mr_length = 0;
  uint64_t pattern_seed = 0;  // its region starts filled with pattern_bytes(pattern_seed, ...)
  // create_qp's arguments, applied at connect: mtu, timers, READ/ATOMIC depths, type.
  std::map<std::string, uint64_t> settings;
  std::string type = "RC";
  std::deque<transport::Completion> completions;  // polled, not yet judged
};

struct TestContext {
  const script::Script& script;
  DutPort& port;
  const Pixit& pixit;
  uint64_t seed = 0;
  SymbolTable symbols{};
  std::map<std::string, QpBinding> qps{};  // by script name
  std::string current_qp{};                // packet lines use this QP's connection
  uint64_t t0_ns = 0;
  uint64_t last_event_ns = 0;
  report::TestResult& result;
  bool aborted = false;  // a harness error: the rest of the script is skipped
  // Set when the tester sent a packet later than the script's time allows (a real-time
  // test bed under load): what the DUT does afterwards answers a different exchange than
  // the script describes, so a mismatch from then on is inconclusive, never a fail.
  std::string tester_late{};
  uint64_t anchor_lateness_ns = 0;  // how late the last event, an injection, went out
  // The DUT's counters when the exchange began, if the script reads counters (expect_counter).
  std::optional<protocol::Counters> counters_at_start{};
  // The tester's reference QPs (`tester` lines) and the layers their frames pass: set by
  // run_test before the first statement.
  DrivenPort* driven = nullptr;
  FaultPort* faults = nullptr;
  BottleneckPort* bottleneck = nullptr;
  // The DUT claims ext.multipath: its Ext packets are judged against their QPs' EV sets
  // (entropy_check.h); a DUT without it owes an Ext QP's set nothing but MR-MU-09.
  bool judges_ev_sets = false;
  std::map<std::string, TesterQp> tester_qps{};  // by script name

  void fail(const script::Position& pos, std::string field, std::string expected,
            std::string actual, std::string message,
            nlohmann::ordered_json expected_packet = nullptr,
            nlohmann::ordered_json actual_packet = nullptr, size_t packet = 0) {
    if (!tester_late.empty()) message += " (inconclusive: " + tester_late + ")";
    result.failures.push_back({script.path, pos.line, std::move(field), std::move(expected),
                               std::move(actual), std::move(message), std::move(expected_packet),
                               std::move(actual_packet), packet, result.clauses});
    result.verdict = report::worse(
        result.verdict, tester_late.empty() ? report::Verdict::kFail : report::Verdict::kInconc);
    if (!tester_late.empty() && result.reason.empty()) result.reason = tester_late;
  }
  void error(const script::Position& pos, std::string message) {
    result.failures.push_back({script.path, pos.line, "", "", "", message, nullptr, nullptr});
    result.verdict = report::worse(result.verdict, report::Verdict::kError);
    if (result.reason.empty())
      result.reason = script.path + ":" + std::to_string(pos.line) + ": " + message;
    aborted = true;
  }
  // The DUT cannot give what the test needs (ENOSPC: memory, a queue or table slot): the
  // test cannot be judged on this DUT, which is no fault of the script either.
  void inconclusive(const script::Position& pos, const std::string& why) {
    result.verdict = report::worse(result.verdict, report::Verdict::kInconc);
    if (result.reason.empty())
      result.reason = script.path + ":" + std::to_string(pos.line) + ": " + why;
    aborted = true;
  }
  const QpBinding* qp() const {
    auto it = qps.find(current_qp);
    return it == qps.end() ? nullptr : &it->second;
  }
  // The QP a `probe` or `event` line names, or the current one; nullptr after reporting the
  // error (`what` names the command).
  const QpBinding* command_qp(const script::Command& c, const std::string& what) {
    if (c.target.empty()) {
      if (qp() == nullptr) error(c.pos, what + " before any QP exists");
      return qp();
    }
    auto it = qps.find(c.target);
    if (it == qps.end()) {
      error(c.pos, what + ": no QP named '" + c.target + "'");
      return nullptr;
    }
    return &it->second;
  }
};

}  // namespace mr::engine
