#include "harness/engine/pixit.h"

#include <fstream>

namespace mr::engine {
namespace {

template <class A>
Expected<A, std::string> address(const nlohmann::json& j, const char* section, const char* key,
                                 const std::string& origin) {
  const auto s = j.contains(section) && j[section].contains(key) && j[section][key].is_string()
                     ? j[section][key].get<std::string>()
                     : std::string();
  auto a = A::parse(s);
  if (!a) return Unexpected(origin + ": " + section + "." + key + ": missing or not an address");
  return *a;
}

}  // namespace

Expected<Pixit, std::string> Pixit::from_json(const nlohmann::json& j, const std::string& origin) {
  Pixit p;
  p.raw = j;
  p.name = j.value("name", origin);
  auto tm = address<wire::MacAddress>(j, "tester", "mac", origin);
  auto dm = address<wire::MacAddress>(j, "dut", "mac", origin);
  auto ti = address<wire::Ipv4Address>(j, "tester", "ipv4", origin);
  auto di = address<wire::Ipv4Address>(j, "dut", "ipv4", origin);
  if (!tm) return Unexpected(tm.error());
  if (!dm) return Unexpected(dm.error());
  if (!ti) return Unexpected(ti.error());
  if (!di) return Unexpected(di.error());
  p.tester_mac = *tm;
  p.dut_mac = *dm;
  p.tester_ip = *ti;
  p.dut_ip = *di;
  const bool has_v6 = j.contains("tester") && j["tester"].contains("ipv6");
  if (has_v6 || (j.contains("dut") && j["dut"].contains("ipv6"))) {
    auto t6 = address<wire::Ipv6Address>(j, "tester", "ipv6", origin);
    auto d6 = address<wire::Ipv6Address>(j, "dut", "ipv6", origin);
    if (!t6) return Unexpected(t6.error());
    if (!d6) return Unexpected(d6.error());
    p.tester_ip6 = *t6;
    p.dut_ip6 = *d6;
  }
  try {
    p.tester_qpn_base = j.at("tester").value("qpn_base", 17U);
    p.tolerance_abs_ms = j.at("tolerance").at("absolute_ms").get<double>();
    p.tolerance_percent = j.at("tolerance").at("percent").get<double>();
    p.expect_ms = j.at("timeouts").at("expect_ms").get<uint64_t>();
    p.no_packet_ms = j.at("timeouts").at("no_packet_ms").get<uint64_t>();
    p.completion_ms = j.at("timeouts").value("completion_ms", p.expect_ms * 10);
  } catch (const nlohmann::json::exception& e) {
    return Unexpected(origin + ": tolerance/timeouts: " + e.what());
  }
  return p;
}

Expected<Pixit, std::string> Pixit::load(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Unexpected(path + ": cannot read");
  try {
    return from_json(nlohmann::json::parse(in), path);
  } catch (const nlohmann::json::exception& e) {
    return Unexpected(path + ": " + e.what());
  }
}

double Pixit::parameter(const std::string& name, double fallback) const {
  const auto p = raw.find("parameters");
  if (p == raw.end() || !p->is_object()) return fallback;
  const auto v = p->find(name);
  return v != p->end() && v->is_number() ? v->get<double>() : fallback;
}

}  // namespace mr::engine
