// File: format.cpp
#include "harness/report/format.h"

#include <cmath>
#include <cstdio>

namespace mr::report {

std::string format_seconds(double s) {
  if (!std::isfinite(s) || s < 0) s = 0;
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.3f", s);
  return buf;
}

std::string format_time_ms(int64_t t_ns) {
  // The magnitude in unsigned arithmetic: INT64_MIN has no positive counterpart.
  const uint64_t abs_ns = t_ns < 0 ? 0 - static_cast<uint64_t>(t_ns) : static_cast<uint64_t>(t_ns);
  char buf[48];
  std::snprintf(buf, sizeof buf, "%s%llu.%03llu", t_ns < 0 ? "-" : "",
                static_cast<unsigned long long>(abs_ns / 1000000),
                static_cast<unsigned long long>((abs_ns / 1000) % 1000));
  return buf;
}

std::string format_value(const nlohmann::ordered_json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_unsigned() || (v.is_number_integer() && v.get<int64_t>() >= 0)) {
    const auto u = v.get<uint64_t>();
    if (u < 10) return std::to_string(u);
    char buf[64];
    // Hex first, as the failure messages write a value ("0x000457 (1111)").
    std::snprintf(buf, sizeof buf, "0x%llx (%llu)", static_cast<unsigned long long>(u),
                  static_cast<unsigned long long>(u));
    return buf;
  }
  return safe_dump(v);
}

std::string plain_text(const nlohmann::ordered_json& v) {
  if (v.is_string()) return v.get<std::string>();
  std::string out;
  if (v.is_array()) {
    for (const auto& item : v) out += (out.empty() ? "" : ", ") + plain_text(item);
    return out;
  }
  if (v.is_object()) {
    for (const auto& [key, value] : v.items()) {
      const bool says_nothing =
          (value.is_string() && value.get_ref<const std::string&>().empty()) ||
          (value.is_array() && value.empty());
      if (says_nothing) continue;
      out += (out.empty() ? "" : ", ") + key + " " + plain_text(value);
    }
    return out;
  }
  return safe_dump(v);
}

std::string short_title(std::string_view statement, size_t max_chars) {
  if (statement.ends_with('.')) statement.remove_suffix(1);
  if (statement.size() <= max_chars) return std::string(statement);
  constexpr std::string_view kEllipsis = "...";
  const size_t room = max_chars > kEllipsis.size() ? max_chars - kEllipsis.size() : 0;
  size_t cut = statement.rfind(' ', room);
  if (cut == std::string_view::npos || cut == 0) {
    // One long word: cut it, but never inside a UTF-8 sequence (continuation bytes 10xxxxxx).
    cut = room;
    while (cut > 0 && (static_cast<unsigned char>(statement[cut]) & 0xC0) == 0x80) --cut;
  }
  std::string_view kept = statement.substr(0, cut);
  while (!kept.empty() &&
         (kept.back() == ',' || kept.back() == ';' || kept.back() == ':' || kept.back() == ' ')) {
    kept.remove_suffix(1);
  }
  return std::string(kept) + std::string(kEllipsis);
}

std::string clause_note(std::span<const std::string> ids, const spec::ClauseCatalog& catalog) {
  if (ids.empty()) return "";
  std::string out = ids.size() == 1 ? "clause " : "clauses ";
  for (size_t i = 0; i < ids.size(); ++i) {
    if (i > 0) out += "; ";
    out += ids[i];
    if (const spec::Clause* c = catalog.find(ids[i]); c != nullptr && !c->statement.empty())
      out += ": " + short_title(c->statement);
  }
  return out;
}

std::string safe_dump(const nlohmann::ordered_json& v, int indent) {
  return v.dump(indent, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace mr::report
