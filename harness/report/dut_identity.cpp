#include "harness/report/dut_identity.h"

#include "harness/report/format.h"

namespace mr::report {
namespace {

using Json = nlohmann::ordered_json;

std::string string_member(const Json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// The capabilities' device: "rxe0 (verbs), Linux 6.1".
std::string device_text(const Json& d) {
  if (!d.is_object()) return plain_text(d);
  std::string out = string_member(d, "name");
  if (const std::string kind = string_member(d, "kind"); !kind.empty()) out += " (" + kind + ")";
  std::string made;
  for (const char* key : {"vendor", "version"}) {
    const std::string s = string_member(d, key);
    if (!s.empty()) made += (made.empty() ? "" : " ") + s;
  }
  if (!made.empty()) out += (out.empty() ? "" : ", ") + made;
  return out.empty() ? plain_text(d) : out;
}

// GIDs: "1 ::ffff:198.18.0.2 (RoCEv2), ...".
std::string gids_text(const Json& gids) {
  if (!gids.is_array()) return plain_text(gids);
  std::string out;
  for (const auto& g : gids) {
    if (!out.empty()) out += ", ";
    if (!g.is_object()) {
      out += plain_text(g);
      continue;
    }
    if (g.contains("index")) out.append(plain_text(g["index"])).append(" ");
    out += g.contains("gid") ? plain_text(g["gid"]) : plain_text(g);
    if (const std::string type = string_member(g, "type"); !type.empty())
      out.append(" (").append(type).append(")");
  }
  return out;
}

}  // namespace

std::vector<IdentityLine> dut_identity(const Json& dut) {
  if (dut.is_null()) return {{"DUT", "unknown (it did not say)"}};
  if (!dut.is_object()) return {{"DUT", plain_text(dut)}};
  std::vector<IdentityLine> lines;
  for (const auto& [key, value] : dut.items()) {
    if (key == "device") {
      lines.push_back({"DUT", device_text(value)});
    } else if (key == "mac") {
      lines.push_back({"MAC", plain_text(value)});
    } else if (key == "ips") {
      lines.push_back({"IPs", plain_text(value)});
    } else if (key == "gids") {
      lines.push_back({"GIDs", gids_text(value)});
    } else {
      lines.push_back({"DUT " + key, plain_text(value)});
    }
  }
  if (lines.empty()) lines.push_back({"DUT", "unknown (it did not say)"});
  return lines;
}

std::string dut_identity_line(const Json& dut) {
  if (dut.is_object() && !dut.contains("device")) {
    // A caller-set identity ({"name": ..., "vendor": ...}): its name first, as a title.
    if (const std::string name = string_member(dut, "name"); !name.empty()) {
      std::string out = name;
      for (const auto& [key, value] : dut.items()) {
        if (key != "name") out += " · " + key + " " + plain_text(value);
      }
      return out;
    }
  }
  std::string out;
  for (const IdentityLine& l : dut_identity(dut)) {
    out += (out.empty() ? "" : " · ") + (l.label == "DUT" ? "" : l.label + " ") + l.text;
  }
  return out;
}

}  // namespace mr::report
