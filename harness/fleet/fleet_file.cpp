#include "harness/fleet/fleet_file.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <utility>

#include "harness/fleet/json_document.h"

namespace mr::fleet {
namespace {

using Json = nlohmann::json;

// Reads the members of one object of the document, each with its type checked, and
// refuses members nobody asked for.
class MemberReader {
 public:
  MemberReader(const JsonDocument& doc, const Json& object, std::string path)
      : doc_(doc), object_(object), path_(std::move(path)) {}

  Expected<std::optional<std::string>, std::string> optional_string(const char* key) {
    read_.insert(key);
    auto it = object_.find(key);
    if (it == object_.end()) return std::nullopt;
    if (!it->is_string()) return Unexpected(wrong_type(key, "a string"));
    if (it->get_ref<const std::string&>().empty()) return Unexpected(error(key, "empty"));
    return it->get<std::string>();
  }
  Expected<std::string, std::string> string(const char* key) {
    auto s = optional_string(key);
    if (!s) return Unexpected(s.error());
    if (!*s) return Unexpected(error(key, "missing"));
    return **s;
  }
  Expected<std::optional<int>, std::string> optional_count(const char* key, int max) {
    read_.insert(key);
    auto it = object_.find(key);
    if (it == object_.end()) return std::nullopt;
    if (!it->is_number_unsigned() || it->get<uint64_t>() < 1 ||
        it->get<uint64_t>() > static_cast<uint64_t>(max)) {
      return Unexpected(error(
          key, "expected an integer from 1 to " + std::to_string(max) + ", got " + it->dump()));
    }
    return static_cast<int>(it->get<uint64_t>());
  }
  Expected<const Json*, std::string> array(const char* key, bool required) {
    read_.insert(key);
    auto it = object_.find(key);
    if (it == object_.end()) {
      if (required) return Unexpected(error(key, "missing"));
      return nullptr;
    }
    if (!it->is_array()) return Unexpected(wrong_type(key, "an array"));
    return &*it;
  }
  // The first member (in key order) that no read asked for.
  Expected<void, std::string> finish() const {
    for (const auto& [key, value] : object_.items()) {
      if (!read_.contains(key)) return Unexpected(error(key, "unknown member"));
    }
    return {};
  }
  std::string error(std::string_view key, const std::string& message) const {
    return doc_.where(member_path(path_, key)) + ": " + message;
  }

 private:
  std::string wrong_type(const char* key, const char* want) const {
    return error(key, std::string("expected ") + want + ", got " + object_.at(key).type_name());
  }

  const JsonDocument& doc_;
  const Json& object_;
  std::string path_;
  std::set<std::string, std::less<>> read_;
};

// A name that is safe as a folder, a Slurm job or node name and a shell word.
bool plain_name(std::string_view s) {
  return !s.empty() && s != "." && s != ".." && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-';
  });
}

bool known_dut(std::string_view dut) {
  return dut == "reference" || dut == "rxe" || dut.starts_with("agent://") ||
         (dut.starts_with("verbs:") && plain_name(dut.substr(6)));
}

// The DUTs whose packets the harness sends and captures on an interface of the node.
bool needs_iface(std::string_view dut) {
  return dut.starts_with("agent://") || dut.starts_with("verbs:");
}

std::string resolved(const std::string& path, const std::string& folder) {
  if (path.empty() || folder.empty() || std::filesystem::path(path).is_absolute()) return path;
  return (std::filesystem::path(folder) / path).lexically_normal().string();
}

Expected<FleetRow, std::string> read_row(const JsonDocument& doc, const Json& j,
                                         const std::string& path, const std::string& folder) {
  if (!j.is_object()) {
    return Unexpected(doc.where(path) + ": expected an object, got " + j.type_name());
  }
  MemberReader r(doc, j, path);
  FleetRow row;
  auto name = r.string("name");
  if (!name) return Unexpected(name.error());
  if (!plain_name(*name)) {
    return Unexpected(r.error("name", "'" + *name + "': letters, digits, '.', '_' and '-' only"));
  }
  row.name = *name;
  auto dut = r.string("dut");
  if (!dut) return Unexpected(dut.error());
  if (!known_dut(*dut)) {
    return Unexpected(r.error(
        "dut", "'" + *dut + "': expected reference, rxe, agent://HOST:PORT or verbs:DEVICE"));
  }
  row.dut = *dut;
  std::string* const optional_fields[] = {&row.node,       &row.profile, &row.pixit,
                                          &row.token_file, &row.filter,  &row.iface};
  const char* const optional_keys[] = {"node", "profile", "pixit", "token_file", "filter", "iface"};
  for (size_t i = 0; i < std::size(optional_keys); ++i) {
    auto value = r.optional_string(optional_keys[i]);
    if (!value) return Unexpected(value.error());
    if (*value) *optional_fields[i] = **value;
  }
  if (!row.node.empty() && !plain_name(row.node)) {
    return Unexpected(r.error("node", "'" + row.node + "': not a Slurm node name"));
  }
  if (!row.profile.empty() && !plain_name(row.profile)) {
    return Unexpected(r.error("profile", "'" + row.profile + "': a profile name, not a path"));
  }
  if (needs_iface(row.dut) && row.iface.empty()) {
    return Unexpected(r.error("iface",
                              "missing: an agent:// or verbs: DUT needs the node's "
                              "interface facing it"));
  }
  if (!needs_iface(row.dut) && !row.iface.empty()) {
    return Unexpected(r.error("iface", "only agent:// and verbs: DUTs take one"));
  }
  if (!row.iface.empty() && !plain_name(row.iface)) {
    return Unexpected(r.error("iface", "'" + row.iface + "': not an interface name"));
  }
  row.pixit = resolved(row.pixit, folder);
  row.token_file = resolved(row.token_file, folder);
  auto mutants = r.array("mutants", false);
  if (!mutants) return Unexpected(mutants.error());
  if (*mutants != nullptr) {
    if (row.dut != "reference") {
      return Unexpected(r.error("mutants", "only the embedded reference (dut reference) has them"));
    }
    for (size_t i = 0; i < (*mutants)->size(); ++i) {
      const Json& m = (**mutants)[i];
      if (!m.is_string() || m.get_ref<const std::string&>().empty()) {
        return Unexpected(doc.where(element_path(member_path(path, "mutants"), i)) +
                          ": expected a mutant's name");
      }
      row.mutants.push_back(m.get<std::string>());
    }
  }
  if (auto done = r.finish(); !done) return Unexpected(done.error());
  return row;
}

}  // namespace

Expected<Fleet, std::string> parse_fleet(std::string_view text, const std::string& origin,
                                         const std::string& folder) {
  auto doc = JsonDocument::parse(text, origin);
  if (!doc) return Unexpected(doc.error());
  const Json& j = doc->value();
  if (!j.is_object()) return Unexpected(origin + ":1: expected an object, got " + j.type_name());
  MemberReader r(*doc, j, "");
  Fleet fleet;
  auto name = r.string("fleet");
  if (!name) return Unexpected(name.error());
  if (!plain_name(*name)) {
    return Unexpected(r.error("fleet", "'" + *name + "': letters, digits, '.', '_' and '-' only"));
  }
  fleet.name = *name;
  auto partition = r.optional_string("partition");
  if (!partition) return Unexpected(partition.error());
  if (*partition && !plain_name(**partition)) {
    return Unexpected(r.error("partition", "'" + **partition + "': not a Slurm partition name"));
  }
  fleet.partition = partition->value_or("");
  // A week: beyond that a limit is a typo.
  auto limit = r.optional_count("time_limit_min", 7 * 24 * 60);
  if (!limit) return Unexpected(limit.error());
  fleet.time_limit_min = limit->value_or(fleet.time_limit_min);
  auto rows = r.array("rows", true);
  if (!rows) return Unexpected(rows.error());
  if ((*rows)->empty()) return Unexpected(r.error("rows", "empty: a fleet needs a row"));
  if (auto done = r.finish(); !done) return Unexpected(done.error());
  std::set<std::string> names;
  for (size_t i = 0; i < (*rows)->size(); ++i) {
    const std::string path = element_path("rows", i);
    auto row = read_row(*doc, (**rows)[i], path, folder);
    if (!row) return Unexpected(row.error());
    if (!names.insert(row->name).second) {
      return Unexpected(doc->where(member_path(path, "name")) + ": '" + row->name +
                        "' names an earlier row too: each row needs its own result folder");
    }
    fleet.rows.push_back(std::move(*row));
  }
  return fleet;
}

Expected<Fleet, std::string> load_fleet(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Unexpected(path + ": cannot read");
  std::ostringstream text;
  text << in.rdbuf();
  const auto folder = std::filesystem::absolute(path).parent_path().string();
  return parse_fleet(text.str(), path, folder);
}

}  // namespace mr::fleet
