// File: results.h
//
// The results model of a run: what the engine found, per test purpose, and what the run
// was (DUT, PICS, PIXIT, seed, inputs). The report writers render it; they never reach into
// the engine. Verdicts follow TTCN-3: none < pass < inconc < fail < error, only ever getting
// worse, plus not-applicable when the PICS does not claim what a test needs.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "harness/spec/clause_catalog.h"

namespace mr::report {

enum class Verdict : uint8_t { kNone, kPass, kInconc, kFail, kError, kNotApplicable };

// Every verdict, in TTCN-3 order, not-applicable last: the order reports list them in.
inline constexpr std::array<Verdict, 6> kAllVerdicts = {Verdict::kNone,   Verdict::kPass,
                                                        Verdict::kInconc, Verdict::kFail,
                                                        Verdict::kError,  Verdict::kNotApplicable};

// "none", "pass", "inconc", "fail", "error", "not-applicable" (the report.json spelling).
std::string_view to_string(Verdict v);
std::optional<Verdict> verdict_from_string(std::string_view s);
// The order a reader wants them in: what needs attention first (fail, error, inconc, no
// verdict), then pass and not-applicable. index.html and summary.md list tests and counts so.
inline constexpr std::array<Verdict, 6> kVerdictsWorstFirst = {
    Verdict::kFail, Verdict::kError, Verdict::kInconc,
    Verdict::kNone, Verdict::kPass,  Verdict::kNotApplicable};

// The worse of two verdicts (TTCN-3 overwriting rules); not-applicable never mixes.
Verdict worse(Verdict a, Verdict b);

// One difference between an expected and an actual packet or outcome.
struct Failure {
  std::string file;
  int line = 0;
  std::string field;     // "BTH.psn", "AETH.syndrome", "completion.status", "memory"
  std::string expected;  // as written or computed, e.g. "0x000457 (1111)"
  std::string actual;
  std::string message;  // one sentence
  // Both packets in decode --json shape when the difference is in a packet; null otherwise.
  // The HTML report shows them side by side, field by field.
  nlohmann::ordered_json expected_packet;
  nlohmann::ordered_json actual_packet;
  // The packet of the exchange it is about (1-based into TestResult::packets), so the ladder
  // can mark it; 0 when it is about no one packet.
  size_t packet = 0;
  // The spec clauses it is against, so that a reader of one failure knows the requirement
  // without opening the test: the test's (`# clause:`), or the one a trace checker found
  // broken; empty for a harness error, which breaks no clause.
  std::vector<std::string> clauses;
};

// A packet of the exchange, for the ladder diagram and the pcapng comments.
struct PacketRecord {
  // Since the script's clock started (its first packet line); negative for a remote DUT's
  // answer to a `dut` command that came before it.
  int64_t t_ns = 0;
  bool from_tester = true;         // tester -> DUT (injected) or DUT -> tester
  std::string summary;             // "RC_SEND_ONLY psn 0x000456 ackreq"
  std::string script_ref;          // "RC-PSN-004.mrt:12 inject", or "" if unmatched
  nlohmann::ordered_json decoded;  // decode --json shape
};

// What one plane and EV carried in one direction of a test's exchange: the Ext packets (those
// with an MXH) the sender sent on it, how many of them were retransmissions, and how many an
// `event` or `impair` line dropped. The report's per-plane view.
struct PathTally {
  bool from_tester = true;
  uint8_t plane = 0;
  uint16_t ev = 0;
  uint64_t packets = 0;
  uint64_t retransmissions = 0;
  uint64_t dropped = 0;
};

// One run of a test purpose when `--repeat` runs it more than once.
struct Repetition {
  uint64_t seed = 0;  // `--seed` for the first, derived from it and the index after that
  Verdict verdict = Verdict::kNone;
  std::string reason;
  std::string capture;  // its pcapng, relative to the run directory, "" if none
  double duration_s = 0;
  int attempts = 1;
};

struct TestResult {
  std::string tp_id;  // "RC-PSN-004"
  std::string file;   // testcases/base/psn/RC-PSN-004.mrt
  std::string purpose;
  std::string group;  // "BV" valid, "BI" invalid, "BO" inopportune
  std::vector<std::string> clauses;
  std::string pics;  // the PICS predicate of the test
  Verdict verdict = Verdict::kNone;
  std::string reason;  // why not applicable, inconclusive or in error
  std::vector<Failure> failures;
  std::vector<PacketRecord> packets;
  std::vector<PathTally> paths;  // by direction, plane and EV; empty without Ext packets
  std::string capture;           // per-test pcapng, relative to the run directory
  double duration_s = 0;
  int attempts = 1;  // >1 when capture loss forced a rerun
  // Every run of the test, in order (one without --repeat). The fields above are those of
  // the first run with the worst verdict, so a report shows the failure a repeat found.
  std::vector<Repetition> repetitions;

  // The verdict differs between repetitions.
  bool flaky() const;
};

// The tests in kVerdictsWorstFirst order, stable within a verdict (the run's order).
std::vector<const TestResult*> tests_worst_first(const std::vector<TestResult>& tests);

// The share of a run's selected tests one shard ran (`run --shard I/N`); a whole run, and the
// merge of every shard, has none.
struct ShardInfo {
  int index = 1;  // 1 to total
  int total = 1;
  // How the tests were shared: "count" (round robin in suite order) or "durations of <path>"
  // (longest first onto the least loaded shard, by a previous report).
  std::string balance;
  // Every test selected before the split, in suite order: merge checks the shards cover it.
  std::vector<std::string> selected;
};

// One shard a merged run was made of (manifest.json's "merged_from").
struct MergedShard {
  int index = 1;
  std::string directory;        // as given to merge
  std::string manifest_sha256;  // of its manifest.json
  nlohmann::ordered_json dut;   // its DUT's identity: stations of one model differ in addresses
};

struct RunResult {
  int schema_version = 2;  // report.json's (report_json.h: kReportSchemaVersion)
  std::string harness_version;
  std::string harness_commit;  // git commit of the harness, "" if unknown
  // How harness_commit was found: "stamped build" (the commit the binary was built from), or,
  // unstamped, "checkout at run time (unstamped build)" (which the binary may not have been
  // built from) or "unknown (unstamped build)" (harness/cli/repository_file.h).
  std::string harness_commit_source;
  // "87cf46c" for a stamped build, "87cf46c, checkout at run time (unstamped build)" else:
  // what the HTML page and summary.md show after the version.
  std::string harness_commit_text() const {
    if (harness_commit_source.empty() || harness_commit_source == "stamped build")
      return harness_commit;
    return harness_commit + ", " + harness_commit_source;
  }
  std::string started_at;  // ISO 8601 UTC
  double duration_s = 0;
  bool cancelled = false;      // stopped early (Ctrl-C): the tests not run are absent
  nlohmann::ordered_json dut;  // identity from hello/capabilities
  // Reference mutants the DUT ran with: a deliberately broken device, not a conformance
  // result. Every report says so.
  std::vector<std::string> mutants;
  // The run's options as given (dut, profile, pixit, filter, seed, repeat, jobs, ...).
  nlohmann::ordered_json options = nlohmann::ordered_json::object();
  // The DUT host's doctor report (harness/doctor), or why there is none; manifest only.
  nlohmann::ordered_json doctor;
  std::string profile;           // PICS profile name
  nlohmann::ordered_json pics;   // the PICS file used
  nlohmann::ordered_json pixit;  // the PIXIT file used
  uint64_t seed = 0;
  int repeat = 1;                             // runs of each test purpose (--repeat)
  std::map<std::string, std::string> inputs;  // path -> SHA-256 of every input file
  std::vector<TestResult> tests;
  // A shard's share (report.json "shard"); none for a whole run or a merged one.
  std::optional<ShardInfo> shard;
  // The shards a merged run joined (manifest.json only: its reports are a whole run's).
  std::vector<MergedShard> merged_from;
  // Every clause of the catalog with its level, so reports can show uncovered ones.
  spec::ClauseCatalog catalog;

  std::map<Verdict, int> counts() const;
  // The verdicts some test has, with their counts, in kVerdictsWorstFirst order: what
  // index.html and summary.md list (no "none 0").
  std::vector<std::pair<Verdict, int>> counts_worst_first() const;
  Verdict overall() const;  // the worst verdict of the applicable tests
};

}  // namespace mr::report
