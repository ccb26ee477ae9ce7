#include "harness/interop/matrix_report.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>

namespace mr::interop {
namespace {

std::string ms(uint64_t ns, int decimals = 1) {
  char text[32];
  std::snprintf(text, sizeof text, "%.*f", decimals, static_cast<double>(ns) / 1e6);
  return text;
}

nlohmann::ordered_json counters_json(const io::ImpairmentCounters& c) {
  nlohmann::ordered_json j = {{"frames", c.frames}};
  for (size_t i = 1; i < io::kImpairmentActionCount; ++i) {
    if (c.actions[i] != 0) {
      j[std::string(io::impairment_action_name(static_cast<io::ImpairmentAction>(i)))] =
          c.actions[i];
    }
  }
  return j;
}

nlohmann::ordered_json completions_json(const std::vector<CompletionRecord>& list) {
  auto j = nlohmann::ordered_json::array();
  for (const auto& c : list) {
    j.push_back({{"wr_id", std::to_string(c.wr_id)},
                 {"status", c.status},
                 {"opcode", c.opcode},
                 {"byte_len", c.byte_len}});
  }
  return j;
}

nlohmann::ordered_json cell_json(const CellResult& c) {
  nlohmann::ordered_json j = {
      {"name", c.cell.name()},
      {"direction", direction_name(c.cell.direction)},
      {"operation", operation_name(c.cell.operation)},
      {"size", c.cell.size},
      {"mtu", c.cell.mtu},
      {"impairment", impairment_name(c.cell.impairment)},
      {"seed", std::to_string(c.seed)},  // 64 bits: a string, as in report.json
      {"verdict", c.passed() ? "pass" : "fail"},
      {"failures", c.outcome.failures},
      {"duration_ms", static_cast<double>(c.outcome.duration_ns) / 1e6},
      {"wall_ms", static_cast<double>(c.wall_ns) / 1e6},
      {"psn", {{"requester", c.outcome.requester_psn}, {"responder", c.outcome.responder_psn}}},
      {"completions",
       {{"requester", completions_json(c.outcome.requester_completions)},
        {"responder", completions_json(c.outcome.responder_completions)}}}};
  auto events = nlohmann::ordered_json::array();
  for (const auto& e : c.impairments) {
    events.push_back({{"direction", io::link_direction_name(e.direction)},
                      {"index", e.index},
                      {"action", io::impairment_action_name(e.action)}});
  }
  j["impairments"] = {{"reference_sent", counters_json(c.sent)},
                      {"reference_received", counters_json(c.received)},
                      {"events", std::move(events)}};
  j["capture"] = c.capture;
  if (c.analysis) {
    const CellAnalysis& a = *c.analysis;
    j["analysis"] = {{"frames", a.frames},
                     {"roce_frames", a.roce_frames},
                     {"retransmissions", a.retransmissions},
                     {"naks", a.naks},
                     {"violations", a.violations},
                     {"violations_by_clause", a.violations_by_clause},
                     {"violation_lines", a.violation_lines}};
  } else {
    j["analysis"] = {{"error", c.analysis_error}};
  }
  return j;
}

uint64_t harness_faults(const CellResult& c) {
  uint64_t n = 0;
  for (size_t i = 1; i < io::kImpairmentActionCount; ++i)
    n += c.sent.actions[i] + c.received.actions[i];
  return n;
}

std::string violations_cell(const CellResult& c) {
  if (!c.analysis) return "n/a";
  std::string s = std::to_string(c.analysis->violations);
  if (c.analysis->violations == 0) return s;
  s += " (";
  bool first = true;
  for (const auto& [clause, n] : c.analysis->violations_by_clause) {
    s += (first ? "" : ", ") + clause + " " + std::to_string(n);
    first = false;
  }
  return s + ")";
}

}  // namespace

std::string cell_line(const CellResult& c) {
  char head[160];
  std::snprintf(head, sizeof head, "%-4s %-40s %9s ms  retx %3llu  harness %3llu  violations %s",
                c.passed() ? "PASS" : "FAIL", c.cell.name().c_str(),
                ms(c.outcome.duration_ns).c_str(),
                static_cast<unsigned long long>(c.analysis ? c.analysis->retransmissions : 0),
                static_cast<unsigned long long>(harness_faults(c)), violations_cell(c).c_str());
  std::string line = head;
  for (const auto& f : c.outcome.failures) line += "\n       " + f;
  return line;
}

nlohmann::ordered_json matrix_json(const MatrixResult& r) {
  auto cells = nlohmann::ordered_json::array();
  for (const auto& c : r.cells) cells.push_back(cell_json(c));
  return {{"dut", r.dut_name},
          {"description", r.dut_description},
          {"seed", std::to_string(r.seed)},
          {"matrix", r.quick ? "quick" : "full"},
          {"reference_mutants", r.mutants},
          {"harness",
           {{"impairment",
             "seeded, on the reference's side of the tap, on the frames it sends "
             "and on those it receives"},
            {"loss", impairment_rate(Impairment::kLoss)},
            {"reorder", impairment_rate(Impairment::kReorder)},
            {"retry_cnt", {{"reference", 7}, {r.dut_name, 6}}},
            {"timeout", 14},
            {"rnr_retry", 7}}},
          {"cells_total", r.cells.size()},
          {"passed", r.passed()},
          {"failed", r.cells.size() - r.passed()},
          {"wall_s", static_cast<double>(r.wall_ns) / 1e9},
          {"cells", std::move(cells)}};
}

std::string matrix_markdown(const MatrixResult& r) {
  std::string md = "# Interop matrix: reference <-> " + r.dut_name + "\n\n";
  md += r.dut_description + ". Matrix " + (r.quick ? "quick" : "full") + ", seed " +
        std::to_string(r.seed) + (r.mutants.empty() ? "" : ", reference mutants: ");
  for (size_t i = 0; i < r.mutants.size(); ++i) md += (i ? ", " : "") + r.mutants[i];
  md += ". Generated by `metaroce interop`; each cell's capture is in `cells/`.\n\n";
  md += "**" + std::to_string(r.passed()) + " of " + std::to_string(r.cells.size()) +
        " cells pass** (" + std::to_string(r.wall_ns / 1'000'000'000) + " s in all).\n\n";
  md += "Directions: `ref-" + r.dut_name + "` = the reference is the requester, `" + r.dut_name +
        "-ref` = " + r.dut_name +
        " is. Impairment: 2% loss or 2% reordering, seeded, applied by the harness on the "
        "reference's side of the tap to the frames it sends and those it receives. Duration: "
        "post_send to the last expected completion. Retransmissions and violations: the "
        "passive analyzer (`metaroce analyze`) on the cell's capture, which holds what each side "
        "sent (it sits between "
        "the harness's two impairments). "
        "Harness: frames the harness dropped or reordered.\n\n";
  std::map<std::string, uint64_t> clauses;
  for (const auto& c : r.cells) {
    if (c.analysis) {
      for (const auto& [k, n] : c.analysis->violations_by_clause) clauses[k] += n;
    }
  }
  if (!clauses.empty()) {
    md += "Violations by clause over the matrix:";
    for (const auto& [k, n] : clauses) md += " " + k + " " + std::to_string(n) + ";";
    md += "\n\n";
  }
  bool any_failed = false;
  for (const auto& c : r.cells) {
    if (c.passed()) continue;
    if (!any_failed) md += "## Failing cells\n\n";
    any_failed = true;
    md += "- `" + c.cell.name() + "` (seed " + std::to_string(c.seed) + "):";
    for (const auto& f : c.outcome.failures) md += " " + f + ";";
    md += "\n";
  }
  if (any_failed) md += "\n";
  md += "## Cells\n\n";
  md +=
      "| direction | operation | size | MTU | impairment | verdict | duration ms | retransmissions "
      "| harness | violations |\n";
  md += "|---|---|---:|---:|---|---|---:|---:|---:|---|\n";
  for (const auto& c : r.cells) {
    md += "| " + std::string(direction_name(c.cell.direction)) + " | " +
          std::string(operation_name(c.cell.operation)) + " | " + std::to_string(c.cell.size) +
          " | " + std::to_string(c.cell.mtu) + " | " +
          std::string(impairment_name(c.cell.impairment)) + " | " +
          (c.passed() ? "pass" : "**fail**") + " | " + ms(c.outcome.duration_ns) + " | " +
          (c.analysis ? std::to_string(c.analysis->retransmissions) : "n/a") + " | " +
          std::to_string(harness_faults(c)) + " | " + violations_cell(c) + " |\n";
  }
  return md;
}

Expected<void, std::string> write_matrix_report(const MatrixResult& r, const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Unexpected(dir + ": " + ec.message());
  auto write = [&](const std::string& name,
                   const std::string& text) -> Expected<void, std::string> {
    const std::string path = (fs::path(dir) / name).string();
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) return Unexpected(path + ": cannot write");
    return {};
  };
  if (auto ok = write("matrix.json", matrix_json(r).dump(1) + "\n"); !ok) return ok;
  return write("matrix.md", matrix_markdown(r));
}

}  // namespace mr::interop
