#include "harness/analyze/report.h"

#include <cinttypes>

#include "harness/analyze/checker.h"

namespace mr::analyze {
namespace {

std::string time_text(uint64_t ns) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%" PRIu64 ".%09" PRIu64, ns / 1'000'000'000, ns % 1'000'000'000);
  return buf;
}

std::string clauses_text(const Direction& d) {
  std::string s;
  for (const auto& [clause, n] : d.violations) {
    s += (s.empty() ? "" : " ") + std::string(clause) + " x" + std::to_string(n);
  }
  return s.empty() ? "none" : s;
}

}  // namespace

std::string violation_line(const Violation& v) {
  return "frame " + std::to_string(v.frame) + " t=" + time_text(v.time_ns) + " flow " + v.flow +
         ": " + std::string(v.clause) + ": " + v.text +
         (v.by_tester ? " [sent by the tester]" : "");
}

nlohmann::ordered_json violation_json(const Violation& v) {
  return {{"clause", v.clause}, {"frame", v.frame},   {"time", time_text(v.time_ns)},
          {"flow", v.flow},     {"sender", v.sender}, {"by_tester", v.by_tester},
          {"text", v.text}};
}

void print_flow_summary(std::FILE* out, const Analyzer& a) {
  for (const auto& [key, d] : a.flows().directions()) {
    std::fprintf(
        out,
        "%s -> %s dqpn %s%s: %llu packets (%llu requests, %llu responses, %llu CNPs), "
        "%llu messages, %llu retransmissions, %llu NAKs, pmtu %u; violations: %s\n",
        key.src.to_string().c_str(), key.dst.to_string().c_str(), hex(key.dqpn).c_str(),
        d.peer ? (" (reverse dqpn " + hex(d.peer->key.dqpn) + ")").c_str() : " (unpaired)",
        static_cast<unsigned long long>(d.packets), static_cast<unsigned long long>(d.requests),
        static_cast<unsigned long long>(d.responses), static_cast<unsigned long long>(d.cnps),
        static_cast<unsigned long long>(d.messages),
        static_cast<unsigned long long>(d.retransmissions), static_cast<unsigned long long>(d.naks),
        d.pmtu(), clauses_text(d).c_str());
  }
}

nlohmann::ordered_json flows_json(const Analyzer& a) {
  auto flows = nlohmann::ordered_json::array();
  for (const auto& [key, d] : a.flows().directions()) {
    nlohmann::ordered_json by_clause = nlohmann::ordered_json::object();
    for (const auto& [clause, n] : d.violations) by_clause[std::string(clause)] = n;
    flows.push_back({{"src", key.src.to_string()},
                     {"dst", key.dst.to_string()},
                     {"dqpn", key.dqpn},
                     {"reverse_dqpn", d.peer ? nlohmann::ordered_json(d.peer->key.dqpn)
                                             : nlohmann::ordered_json(nullptr)},
                     {"udp_sport", d.sport},
                     {"packets", d.packets},
                     {"requests", d.requests},
                     {"responses", d.responses},
                     {"cnps", d.cnps},
                     {"messages", d.messages},
                     {"retransmissions", d.retransmissions},
                     {"naks", d.naks},
                     {"pmtu", d.pmtu()},
                     {"violations", by_clause}});
  }
  return flows;
}

}  // namespace mr::analyze
