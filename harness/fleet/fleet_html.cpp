// File: fleet_html.cpp
//
// DIR/index.html of a collected fleet: the nodes (failing, erroring, inconclusive and
// outlier nodes first) with their status and a link to each node's own report, then the
// node x clause matrix: one row per node, one column per clause any node covered, the
// node's verdict on the clause in each cell, cells that differ from the fleet's majority
// outlined. The report's stylesheet and badges, so that both pages read alike.
#include "harness/fleet/fleet_result.h"
#include "harness/report/escape.h"
#include "harness/report/html_parts.h"

namespace mr::fleet {
namespace {

using report::attr_escape;
using report::text_escape;

constexpr const char* kFleetStyle = R"css(
td.cell{text-align:center;font-size:11px;padding:2px 4px}td.cell.v-pass{background:#dafbe1}
td.cell.v-fail{background:#ffcecb}td.cell.v-error{background:#e8dbff}td.cell.v-inconc{background:#fff1c2}
td.cell.v-not-applicable{background:#f6f8fa}td.cell.outlier{outline:3px solid #0969da;outline-offset:-3px;font-weight:bold}
th.clause{writing-mode:vertical-rl;transform:rotate(180deg);font-size:11px;white-space:nowrap;padding:4px 2px}
.matrix-wrap{overflow-x:auto}td.reason{max-width:40em}
)css";

// The text of a cell: short, the class carries the colour.
std::string cell_text(Verdict v) {
  switch (v) {
    case Verdict::kPass:
      return "pass";
    case Verdict::kFail:
      return "FAIL";
    case Verdict::kError:
      return "ERR";
    case Verdict::kInconc:
      return "inc";
    case Verdict::kNotApplicable:
      return "n/a";
    case Verdict::kNone:
      break;
  }
  return "-";
}

std::string node_link(const NodeResult& n) {
  const std::string name = text_escape(n.planned.name);
  if (!n.has_report_html) return "<span class=\"mono\">" + name + "</span>";
  return "<a class=\"mono\" href=\"" + attr_escape(n.folder + "/run/index.html") + "\">" + name +
         "</a>";
}

std::string counts_text(const NodeResult& n) {
  std::string out;
  for (Verdict v : report::kVerdictsWorstFirst) {
    auto it = n.counts.find(std::string(report::to_string(v)));
    if (it == n.counts.end() || it->second == 0) continue;
    out +=
        "<span>" + std::to_string(it->second) + " " + text_escape(report::to_string(v)) + "</span>";
  }
  return out;
}

void append_nodes_table(std::string& out, const FleetResult& f) {
  out +=
      "<h2>Nodes</h2>\n<table class=\"nodes\">\n<tr><th>row</th><th>node</th><th>verdict</th>"
      "<th>host</th><th>Slurm job</th><th>DUT</th><th>profile</th><th>doctor</th>"
      "<th>tests</th><th>why / outlier clauses</th></tr>\n";
  for (const NodeResult& n : f.nodes) {
    const TaskStatus* s = n.status ? &*n.status : nullptr;
    std::string why = text_escape(n.reason);
    if (auto it = f.outlier_clauses.find(n.planned.name); it != f.outlier_clauses.end()) {
      if (!why.empty()) why += "<br>";
      why += "differs from the fleet on:";
      for (const std::string& c : it->second) why += " <code>" + text_escape(c) + "</code>";
    }
    const std::string job = s == nullptr || s->slurm_array_job_id.empty()
                                ? std::string()
                                : s->slurm_array_job_id + "_" + s->slurm_array_task_id;
    out += "<tr id=\"node-" + report::id_escape(n.planned.name) + "\"><td>" +
           std::to_string(n.row) + "</td><td>" + node_link(n) + "</td><td>" +
           report::html::verdict_badge(n.verdict) + "</td><td class=\"mono\">" +
           text_escape(s != nullptr ? s->host : "") + "</td><td class=\"mono\">" +
           text_escape(job) + "</td><td class=\"mono\">" + text_escape(n.planned.dut) +
           (n.planned.mutants.empty() ? std::string()
                                      : " <span class=\"badge v-fail\">mutant</span>") +
           "</td><td>" + text_escape(n.planned.profile.empty() ? "default" : n.planned.profile) +
           "</td><td>" + text_escape(s != nullptr ? s->doctor_worst : "") +
           (s != nullptr ? " <a href=\"" + attr_escape(n.folder + "/doctor.json") + "\">json</a>"
                         : std::string()) +
           "</td><td class=\"counts\">" + counts_text(n) + "</td><td class=\"reason\">" + why +
           "</td></tr>\n";
  }
  out += "</table>\n";
}

void append_matrix(std::string& out, const FleetResult& f) {
  out += "<h2>Node x clause</h2>\n";
  if (f.clauses.empty()) {
    out += "<p>No node has a report with covered clauses.</p>\n";
    return;
  }
  out += "<div class=\"matrix-wrap\"><table class=\"matrix\">\n<tr><th>node</th>";
  for (const std::string& c : f.clauses) {
    auto m = f.majority.find(c);
    const std::string title = m == f.majority.end()
                                  ? "no majority"
                                  : "majority: " + std::string(report::to_string(m->second));
    out += "<th class=\"clause\" title=\"" + attr_escape(title) + "\">" + text_escape(c) + "</th>";
  }
  out += "</tr>\n";
  for (const NodeResult& n : f.nodes) {
    out += "<tr><th>" + node_link(n) + "</th>";
    for (const std::string& c : f.clauses) {
      auto it = n.clause_verdicts.find(c);
      if (it == n.clause_verdicts.end()) {
        out += "<td class=\"cell\"></td>";
        continue;
      }
      auto m = f.majority.find(c);
      const bool outlier = m != f.majority.end() && m->second != it->second;
      out += "<td class=\"cell " + report::html::verdict_class(it->second) +
             (outlier ? " outlier" : "") + "\" title=\"" +
             attr_escape(n.planned.name + " " + c + ": " +
                         std::string(report::to_string(it->second))) +
             "\">" + cell_text(it->second) + "</td>";
    }
    out += "</tr>\n";
  }
  out += "</table></div>\n";
}

}  // namespace

std::string render_fleet_html(const FleetResult& f) {
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>";
  out += "metaroce fleet " + text_escape(f.name) + "</title>\n<style>";
  out += report::html::stylesheet();
  out += kFleetStyle;
  out += "</style></head><body>\n<h1>Fleet " + text_escape(f.name) + " " +
         report::html::verdict_badge(f.overall()) + "</h1>\n";
  std::map<Verdict, int> by_verdict;
  for (const NodeResult& n : f.nodes) ++by_verdict[n.verdict];
  out += "<p class=\"counts\">" + std::to_string(f.nodes.size()) + " node(s): ";
  for (Verdict v : report::kVerdictsWorstFirst) {
    if (by_verdict[v] > 0) {
      out += "<span>" + std::to_string(by_verdict[v]) + " " + report::html::verdict_badge(v) +
             "</span>";
    }
  }
  out +=
      "</p>\n<p>Nodes that need attention come first: failing, erroring and inconclusive "
      "ones, then those that differ from the fleet's majority on some clause (outlined "
      "cells). Each node's name links to its own report.</p>\n";
  append_nodes_table(out, f);
  append_matrix(out, f);
  out += "</body></html>\n";
  return out;
}

}  // namespace mr::fleet
