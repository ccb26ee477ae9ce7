// File: report_json_reader.cpp
//
// Every member is read through Members, which checks its type and keeps the first error with
// the member's full path; the readers below then read on with defaults, and the caller
// returns that one error. A report is a file the harness wrote, so unknown members are
// ignored (a later schema adds some); a missing or mistyped one is refused.
#include "harness/report/report_json_reader.h"

#include <charconv>
#include <fstream>
#include <limits>
#include <utility>

#include "harness/report/report_json.h"

namespace mr::report {
namespace {

using Json = nlohmann::ordered_json;

// The members of one JSON object, each read once by name; the first error wins.
class Members {
 public:
  Members(const Json& object, std::string path, std::string& error)
      : object_(object), path_(std::move(path)), error_(error) {
    if (!object_.is_object()) fail(path_.empty() ? "the document" : path_, "expected an object");
  }

  std::string path_of(std::string_view key) const {
    return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
  }

  // The member, or null (an error unless `optional`).
  const Json& any(std::string_view key, bool optional = false) {
    static const Json kNull;
    if (!object_.is_object()) return kNull;
    auto it = object_.find(key);
    if (it == object_.end()) {
      if (!optional) fail(path_of(key), "missing");
      return kNull;
    }
    return *it;
  }

  std::string text(std::string_view key) {
    const Json& v = any(key);
    if (v.is_string()) return v.get<std::string>();
    if (!v.is_null()) fail(path_of(key), "expected a string");
    return {};
  }

  int64_t integer(std::string_view key, int64_t min, int64_t max) {
    const Json& v = any(key);
    if (v.is_number_integer()) {
      // Unsigned values above int64's range compare as negative: read them as unsigned.
      if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(max)) {
        fail(path_of(key), "above " + std::to_string(max));
        return min;
      }
      const auto n = v.get<int64_t>();
      if (n >= min && n <= max) return n;
      fail(path_of(key), "out of range " + std::to_string(min) + " to " + std::to_string(max));
    } else if (!v.is_null()) {
      fail(path_of(key), "expected an integer");
    }
    return min;
  }

  double number(std::string_view key) {
    const Json& v = any(key);
    if (v.is_number()) return v.get<double>();
    if (!v.is_null()) fail(path_of(key), "expected a number");
    return 0;
  }

  bool boolean(std::string_view key, bool fallback) {
    const Json& v = any(key, /*optional=*/true);
    if (v.is_boolean()) return v.get<bool>();
    if (!v.is_null()) fail(path_of(key), "expected true or false");
    return fallback;
  }

  // A seed: decimal digits in a string (report.json's spelling of a 64-bit value).
  uint64_t decimal(std::string_view key) {
    const std::string s = text(key);
    uint64_t v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size() || s.empty())
      fail(path_of(key), "expected decimal digits of a 64-bit value, got \"" + s + "\"");
    return v;
  }

  std::vector<std::string> texts(std::string_view key) {
    std::vector<std::string> out;
    const Json& v = any(key);
    if (!v.is_array()) {
      if (!v.is_null()) fail(path_of(key), "expected an array of strings");
      return out;
    }
    for (size_t i = 0; i < v.size(); ++i) {
      if (!v[i].is_string()) {
        fail(path_of(key) + "[" + std::to_string(i) + "]", "expected a string");
        return out;
      }
      out.push_back(v[i].get<std::string>());
    }
    return out;
  }

  // The member's items, each with its path; empty (and an error) when it is not an array.
  std::vector<std::pair<const Json*, std::string>> items(std::string_view key) {
    std::vector<std::pair<const Json*, std::string>> out;
    const Json& v = any(key);
    if (!v.is_array()) {
      if (!v.is_null()) fail(path_of(key), "expected an array");
      return out;
    }
    out.reserve(v.size());
    for (size_t i = 0; i < v.size(); ++i)
      out.emplace_back(&v[i], path_of(key) + "[" + std::to_string(i) + "]");
    return out;
  }

  Verdict verdict(std::string_view key) {
    const std::string s = text(key);
    if (auto v = verdict_from_string(s)) return *v;
    fail(path_of(key),
         "expected one of none, pass, inconc, fail, error, not-applicable, got \"" + s + "\"");
    return Verdict::kNone;
  }

  void fail(const std::string& path, const std::string& what) {
    if (error_.empty()) error_ = path + ": " + what;
  }

 private:
  const Json& object_;
  std::string path_;
  std::string& error_;
};

constexpr int64_t kIntMax = std::numeric_limits<int>::max();
constexpr int64_t kCountMax = std::numeric_limits<int64_t>::max();

Failure read_failure(const Json& j, const std::string& path, std::string& error) {
  Members m(j, path, error);
  Failure f;
  f.file = m.text("file");
  f.line = static_cast<int>(m.integer("line", 0, kIntMax));
  f.field = m.text("field");
  f.expected = m.text("expected");
  f.actual = m.text("actual");
  f.message = m.text("message");
  f.clauses = m.texts("clauses");
  f.expected_packet = m.any("expected_packet", /*optional=*/true);
  f.actual_packet = m.any("actual_packet", /*optional=*/true);
  // null: about no one packet.
  if (!m.any("packet", /*optional=*/true).is_null())
    f.packet = static_cast<size_t>(m.integer("packet", 1, kIntMax));
  return f;
}

PacketRecord read_packet(const Json& j, const std::string& path, std::string& error) {
  Members m(j, path, error);
  PacketRecord p;
  p.t_ns =
      m.integer("t_ns", std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max());
  p.from_tester = m.boolean("from_tester", true);
  p.summary = m.text("summary");
  p.script_ref = m.text("script_ref");
  p.decoded = m.any("decoded", /*optional=*/true);
  return p;
}

PathTally read_path(const Json& j, const std::string& path, std::string& error) {
  Members m(j, path, error);
  PathTally p;
  p.from_tester = m.boolean("from_tester", true);
  p.plane = static_cast<uint8_t>(m.integer("plane", 0, 255));
  p.ev = static_cast<uint16_t>(m.integer("ev", 0, 0xffff));
  p.packets = static_cast<uint64_t>(m.integer("packets", 0, kCountMax));
  p.retransmissions = static_cast<uint64_t>(m.integer("retransmissions", 0, kCountMax));
  p.dropped = static_cast<uint64_t>(m.integer("dropped", 0, kCountMax));
  return p;
}

Repetition read_repetition(const Json& j, const std::string& path, std::string& error) {
  Members m(j, path, error);
  Repetition r;
  r.seed = m.decimal("seed");
  r.verdict = m.verdict("verdict");
  r.reason = m.text("reason");
  r.capture = m.text("capture");
  r.duration_s = m.number("duration_s");
  r.attempts = static_cast<int>(m.integer("attempts", 0, kIntMax));
  return r;
}

TestResult read_test(const Json& j, const std::string& path, std::string& error) {
  Members m(j, path, error);
  TestResult t;
  t.tp_id = m.text("tp_id");
  t.file = m.text("file");
  t.purpose = m.text("purpose");
  t.group = m.text("group");
  t.clauses = m.texts("clauses");
  t.pics = m.text("pics");
  t.verdict = m.verdict("verdict");
  t.reason = m.text("reason");
  for (const auto& [item, where] : m.items("failures"))
    t.failures.push_back(read_failure(*item, where, error));
  for (const auto& [item, where] : m.items("packets"))
    t.packets.push_back(read_packet(*item, where, error));
  if (m.any("paths", /*optional=*/true).is_array()) {
    for (const auto& [item, where] : m.items("paths"))
      t.paths.push_back(read_path(*item, where, error));
  }
  t.capture = m.text("capture");
  t.duration_s = m.number("duration_s");
  t.attempts = static_cast<int>(m.integer("attempts", 0, kIntMax));
  if (m.any("repetitions", /*optional=*/true).is_array()) {
    for (const auto& [item, where] : m.items("repetitions"))
      t.repetitions.push_back(read_repetition(*item, where, error));
  }
  return t;
}

std::optional<ShardInfo> read_shard(Members& top, std::string& error) {
  const Json& j = top.any("shard", /*optional=*/true);
  if (j.is_null()) return std::nullopt;
  Members m(j, "shard", error);
  ShardInfo s;
  s.total = static_cast<int>(m.integer("total", 1, kIntMax));
  s.index = static_cast<int>(m.integer("index", 1, kIntMax));
  if (s.index > s.total) m.fail("shard.index", "above shard.total");
  s.balance = m.text("balance");
  s.selected = m.texts("selected");
  return s;
}

std::map<std::string, std::string> read_inputs(Members& top) {
  std::map<std::string, std::string> out;
  const Json& j = top.any("inputs");
  if (!j.is_object()) {
    if (!j.is_null()) top.fail("inputs", "expected an object");
    return out;
  }
  for (const auto& [path, digest] : j.items()) {
    if (!digest.is_string()) {
      top.fail("inputs." + path, "expected a SHA-256 string");
      break;
    }
    out[path] = digest.get<std::string>();
  }
  return out;
}

}  // namespace

Expected<RunResult, std::string> run_from_report_json(const Json& document,
                                                      const std::string& source) {
  std::string error;
  Members m(document, "", error);
  RunResult run;
  run.schema_version = static_cast<int>(m.integer("schema_version", 0, kIntMax));
  if (error.empty() && run.schema_version != kReportSchemaVersion)
    return Unexpected(source + ": schema_version " + std::to_string(run.schema_version) +
                      ": this harness reads version " + std::to_string(kReportSchemaVersion) +
                      " (a report of another harness version; run it again with this one)");
  run.harness_version = m.text("harness_version");
  run.harness_commit = m.text("harness_commit");
  if (m.any("harness_commit_source", /*optional=*/true).is_string())
    run.harness_commit_source = m.text("harness_commit_source");
  run.started_at = m.text("started_at");
  run.duration_s = m.number("duration_s");
  run.cancelled = m.boolean("cancelled", false);
  run.dut = m.any("dut", /*optional=*/true);
  run.profile = m.text("profile");
  run.pics = m.any("pics", /*optional=*/true);
  run.pixit = m.any("pixit", /*optional=*/true);
  run.seed = m.decimal("seed");
  run.repeat = static_cast<int>(m.integer("repeat", 1, kIntMax));
  run.mutants = m.texts("mutants");
  run.options = m.any("options");
  if (!run.options.is_object()) m.fail("options", "expected an object");
  run.inputs = read_inputs(m);
  for (const auto& [item, where] : m.items("tests"))
    run.tests.push_back(read_test(*item, where, error));
  run.shard = read_shard(m, error);
  if (!error.empty()) return Unexpected(source + ": " + error);
  // report.json carries the catalog's clauses array (or null for a model without one).
  const Json& clauses = m.any("clause_catalog", /*optional=*/true);
  if (!clauses.is_null()) {
    auto catalog =
        spec::ClauseCatalog::from_json(Json{{"clauses", clauses}}, source + ": clause_catalog");
    if (!catalog) return Unexpected(catalog.error());
    run.catalog = std::move(*catalog);
  }
  return run;
}

Expected<RunResult, std::string> read_report_json(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Unexpected(path + ": cannot be read (is it a run directory's report.json?)");
  Json document;
  try {
    document = Json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    return Unexpected(path + ": not JSON: " + e.what());
  }
  return run_from_report_json(document, path);
}

}  // namespace mr::report
