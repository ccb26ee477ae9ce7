#include "harness/doctor/finding.h"

#include <array>
#include <utility>

namespace mr::doctor {
namespace {

constexpr std::array<std::pair<Severity, std::string_view>, 3> kNames{{
    {Severity::kOk, "ok"},
    {Severity::kWarning, "warning"},
    {Severity::kError, "error"},
}};

}  // namespace

std::string_view severity_name(Severity s) {
  for (const auto& [value, name] : kNames) {
    if (value == s) return name;
  }
  return "error";
}

std::optional<Severity> parse_severity(std::string_view name) {
  for (const auto& [value, n] : kNames) {
    if (n == name) return value;
  }
  return std::nullopt;
}

namespace {

// A report may come from a remote agent: its text must not drive the terminal.
std::string printable(std::string s) {
  for (char& c : s) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
  return s;
}

}  // namespace

std::string render_line(const Finding& f) {
  std::string line = "[" + std::string(severity_name(f.severity)) + "] ";
  if (!f.subject.empty()) line += f.subject + ": ";
  line += f.message;
  if (!f.remedy.empty()) line += "; fix: " + f.remedy;
  return printable(std::move(line));
}

}  // namespace mr::doctor
