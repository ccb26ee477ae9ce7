// File: sample_run.cpp
#include "harness/report/sample_run.h"

namespace mr::report::testing {
namespace {

using Json = nlohmann::ordered_json;

Json ack_packet(uint32_t psn, uint32_t syndrome) {
  return Json{{"frame", 2},
              {"layers", {"Ether", "IP", "UDP", "BTH", "AETH"}},
              {"opcode_name", "RC_ACKNOWLEDGE"},
              {"UDP", {{"sport", 49443}, {"dport", 4791}}},
              {"BTH", {{"opcode", 17}, {"dqpn", 18}, {"ackreq", 0}, {"psn", psn}}},
              {"AETH", {{"syndrome", syndrome}, {"msn", 1}}}};
}

PacketRecord packet(uint64_t t_ns, bool from_tester, std::string summary, std::string ref) {
  PacketRecord p;
  p.t_ns = t_ns;
  p.from_tester = from_tester;
  p.summary = std::move(summary);
  p.script_ref = std::move(ref);
  return p;
}

TestResult test(std::string tp, std::string file, Verdict v, std::vector<std::string> clauses) {
  TestResult t;
  t.tp_id = std::move(tp);
  t.file = std::move(file);
  t.purpose = "Purpose of " + t.tp_id + ".";
  t.group = "BV";
  t.clauses = std::move(clauses);
  t.pics = "rc.send";
  t.verdict = v;
  t.duration_s = 0.012;
  return t;
}

Json clause(const char* id, const char* level, const char* statement) {
  return Json{{"id", id}, {"level", level}, {"statement", statement}};
}

}  // namespace

RunResult sample_run() {
  RunResult run;
  run.harness_version = "0.1.0";
  run.harness_commit = "87cf46c";
  run.harness_commit_source = "stamped build";
  run.started_at = "2024-05-01T12:00:00Z";
  run.duration_s = 1.5;
  run.dut = Json{{"name", "reference"}, {"vendor", "MetaRoCE"}, {"firmware", "1.0"}};
  run.profile = "base-rc";
  run.pics = Json{{"features", {"roce.v2", "rc.send"}}};
  run.pixit = Json{{"T_ACK_TIMEOUT", 4096}};
  run.seed = 42;
  run.inputs = {{"testcases/base/psn/RC-PSN-004.mrt", std::string(64, 'a')}};
  run.catalog = *spec::ClauseCatalog::from_json(
      Json{{"schema_version", 1},
           {"clauses",
            {clause("MR-PS-02", "SHOULD", "A responder should do a thing."),
             clause("MR-PS-01", "MUST", "A responder answers a duplicate request with an ACK."),
             clause("MR-WF-01", "MUST", "Every RoCEv2 packet has UDP destination port 4791."),
             clause("MR-AK-09", "MUST", "An uncovered MUST clause.")}}},
      "the sample catalog");

  TestResult pass =
      test("RC-PSN-001", "testcases/base/psn/RC-PSN-001.mrt", Verdict::kPass, {"MR-PS-01"});
  pass.packets = {
      packet(0, true, "RC_SEND_ONLY psn 0x000100 ackreq", "RC-PSN-001.mrt:10 inject"),
      packet(15000, false, "RC_ACKNOWLEDGE psn 0x000100 ACK", "RC-PSN-001.mrt:11 expect")};
  pass.capture = "captures/RC-PSN-001.pcapng";

  TestResult fail = test("RC-PSN-004", "testcases/base/psn/RC-PSN-004.mrt", Verdict::kFail,
                         {"MR-PS-01", "MR-WF-01"});
  Failure f1;
  f1.file = fail.file;
  f1.line = 12;
  f1.field = "BTH.psn";
  f1.expected = "0x000457 (1111)";
  f1.actual = "0x000456 (1110)";
  f1.message = "The ACK names the wrong PSN.";
  f1.expected_packet = ack_packet(1111, 31);
  f1.actual_packet = ack_packet(1110, 31);
  f1.packet = 2;
  f1.clauses = fail.clauses;
  Failure f2 = f1;
  f2.line = 14;
  f2.field = "AETH.syndrome";
  f2.expected = "0x1f (31)";
  f2.actual = "0x60 (96)";
  f2.message = "A NAK where an ACK was expected.";
  f2.expected_packet = ack_packet(1112, 31);
  f2.actual_packet = ack_packet(1112, 96);
  f2.packet = 3;
  f2.clauses = {"MR-WF-01"};  // as a trace checker's: the one clause it found broken
  fail.failures = {f1, f2};
  fail.packets = {
      packet(0, true, "RC_SEND_ONLY psn 0x000456", "RC-PSN-004.mrt:10 inject"),
      packet(9000, false, "RC_ACKNOWLEDGE psn 0x000456", ""),
      packet(20000, false, "RC_ACKNOWLEDGE psn 0x000458 NAK", "RC-PSN-004.mrt:14 expect")};

  TestResult inconc =
      test("RC-RT-002", "testcases/base/retry/RC-RT-002.mrt", Verdict::kInconc, {"MR-PS-02"});
  inconc.reason = "capture lost 3 packets (libpcap ps_drop) after 2 attempts";
  inconc.attempts = 2;

  TestResult error =
      test("RC-WF-003", "testcases/base/wire/RC-WF-003.mrt", Verdict::kError, {"MR-WF-01"});
  error.reason = "DUT agent stopped answering the control protocol";

  TestResult na =
      test("UD-SND-001", "testcases/ext/ud/UD-SND-001.mrt", Verdict::kNotApplicable, {"MR-UD-01"});
  na.reason = "PICS does not claim ud.send";
  na.duration_s = 0;

  run.tests = {pass, fail, inconc, error, na};
  return run;
}

RunResult hostile_run(const std::string& hostile) {
  RunResult run = sample_run();
  run.dut["name"] = hostile;
  run.profile = hostile;
  run.harness_version = hostile;
  run.started_at = hostile;
  run.mutants = {hostile};
  run.options = nlohmann::ordered_json{{"filter", hostile}, {"testcases", {hostile, hostile}}};
  for (TestResult& t : run.tests) {
    t.tp_id += hostile;
    t.file = "testcases/" + hostile + "/" + t.tp_id + ".mrt";
    t.purpose = hostile;
    t.reason = hostile;
    t.capture = hostile;
    t.clauses.push_back(hostile);
    for (Failure& f : t.failures) {
      f.file = hostile;
      f.field = hostile;
      f.expected = hostile;
      f.actual = hostile;
      f.message = hostile;
      f.clauses.push_back(hostile);
      f.actual_packet["BTH"]["note"] = hostile;
    }
    for (PacketRecord& p : t.packets) {
      p.summary = hostile;
      p.script_ref = hostile;
    }
  }
  return run;
}

}  // namespace mr::report::testing
