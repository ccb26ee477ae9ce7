#include "harness/doctor/doctor_report.h"

#include <algorithm>
#include <array>

namespace mr::doctor {
namespace {

constexpr std::array<const char*, 4> kTextFields{"check", "subject", "message", "remedy"};

std::string* text_field(Finding& f, std::string_view name) {
  if (name == "check") return &f.check;
  if (name == "subject") return &f.subject;
  if (name == "message") return &f.message;
  return &f.remedy;
}

Expected<Finding, std::string> finding_from_json(const Json& j, const std::string& path) {
  if (!j.is_object()) return Unexpected(path + ": must be an object");
  Finding f;
  auto sev = j.find("severity");
  if (sev == j.end() || !sev->is_string()) return Unexpected(path + ".severity: must be a string");
  auto parsed = parse_severity(sev->get<std::string>());
  if (!parsed) return Unexpected(path + ".severity: must be ok, warning or error");
  f.severity = *parsed;
  for (const char* name : kTextFields) {
    auto it = j.find(name);
    if (it == j.end()) continue;  // an agent may leave out empty members
    if (!it->is_string()) return Unexpected(path + "." + name + ": must be a string");
    *text_field(f, name) = it->get<std::string>();
  }
  if (f.check.empty()) return Unexpected(path + ".check: is required");
  return f;
}

}  // namespace

Severity DoctorReport::worst() const {
  Severity s = Severity::kOk;
  for (const auto& f : findings) s = std::max(s, f.severity);
  return s;
}

Json to_json(const DoctorReport& r) {
  Json findings = Json::array();
  for (const auto& f : r.findings) {
    findings.push_back({{"severity", severity_name(f.severity)},
                        {"check", f.check},
                        {"subject", f.subject},
                        {"message", f.message},
                        {"remedy", f.remedy}});
  }
  return {{"findings", std::move(findings)}, {"facts", r.facts}};
}

Expected<DoctorReport, std::string> report_from_json(const Json& j) {
  if (!j.is_object()) return Unexpected(std::string("doctor report: must be an object"));
  auto list = j.find("findings");
  if (list == j.end() || !list->is_array()) {
    return Unexpected(std::string("findings: must be an array"));
  }
  DoctorReport r;
  for (size_t i = 0; i < list->size(); ++i) {
    auto f = finding_from_json((*list)[i], "findings[" + std::to_string(i) + "]");
    if (!f) return Unexpected(f.error());
    r.findings.push_back(std::move(*f));
  }
  if (auto facts = j.find("facts"); facts != j.end()) {
    if (!facts->is_object()) return Unexpected(std::string("facts: must be an object"));
    r.facts = *facts;
  }
  return r;
}

std::string render_text(const DoctorReport& r) {
  std::string out;
  std::array<int, 3> counts{};
  for (const auto& f : r.findings) {
    out += render_line(f) + "\n";
    ++counts.at(static_cast<size_t>(f.severity));
  }
  auto plural = [](int n, const char* word) {
    return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
  };
  out += plural(counts[2], "error") + ", " + plural(counts[1], "warning") + ", " +
         std::to_string(counts[0]) + " ok\n";
  return out;
}

}  // namespace mr::doctor
