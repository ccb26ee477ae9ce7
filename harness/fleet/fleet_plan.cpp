#include "harness/fleet/fleet_plan.h"

#include <map>
#include <utility>

#include "harness/fleet/json_document.h"

namespace mr::fleet {
namespace {

using Json = nlohmann::json;

void put_if_set(Json& j, const char* key, const std::string& value) {
  if (!value.empty()) j[key] = value;
}

}  // namespace

std::string FleetPlan::node_folder(size_t row) const {
  return out + "/nodes/" + fleet.rows.at(row).name;
}

std::string FleetPlan::job_ids() const {
  std::string ids;
  for (const auto& a : arrays) {
    if (a.job_id.empty()) continue;
    if (!ids.empty()) ids += ',';
    ids += a.job_id;
  }
  return ids;
}

FleetPlan make_plan(Fleet fleet, std::string fleet_file, std::string binary, std::string root,
                    std::string out) {
  FleetPlan plan{std::move(fleet), std::move(fleet_file), std::move(binary),
                 std::move(root),  std::move(out),        {}};
  std::map<std::string, size_t> array_of_node;
  PlannedArray anywhere;
  for (size_t i = 0; i < plan.fleet.rows.size(); ++i) {
    const std::string& node = plan.fleet.rows[i].node;
    if (node.empty()) {
      anywhere.rows.push_back(i);
      continue;
    }
    auto [it, added] = array_of_node.emplace(node, plan.arrays.size());
    if (added) plan.arrays.push_back({node, {}, "", ""});
    plan.arrays[it->second].rows.push_back(i);
  }
  if (!anywhere.rows.empty()) plan.arrays.push_back(std::move(anywhere));
  for (size_t a = 0; a < plan.arrays.size(); ++a) {
    PlannedArray& array = plan.arrays[a];
    array.script = "job-" + std::to_string(a) +
                   (array.node.empty() ? std::string("-partition") : "-" + array.node) + ".sbatch";
  }
  return plan;
}

Json fleet_to_json(const Fleet& fleet) {
  Json j{{"fleet", fleet.name}, {"time_limit_min", fleet.time_limit_min}, {"rows", Json::array()}};
  put_if_set(j, "partition", fleet.partition);
  for (const FleetRow& r : fleet.rows) {
    Json row{{"name", r.name}, {"dut", r.dut}};
    put_if_set(row, "node", r.node);
    put_if_set(row, "profile", r.profile);
    put_if_set(row, "pixit", r.pixit);
    put_if_set(row, "token_file", r.token_file);
    put_if_set(row, "filter", r.filter);
    put_if_set(row, "iface", r.iface);
    if (!r.mutants.empty()) row["mutants"] = r.mutants;
    j["rows"].push_back(std::move(row));
  }
  return j;
}

Json plan_to_json(const FleetPlan& plan) {
  Json rows = Json::array();
  for (size_t i = 0; i < plan.fleet.rows.size(); ++i) {
    rows.push_back(
        {{"index", i}, {"name", plan.fleet.rows[i].name}, {"folder", plan.node_folder(i)}});
  }
  Json arrays = Json::array();
  for (const PlannedArray& a : plan.arrays) {
    arrays.push_back(
        {{"node", a.node}, {"rows", a.rows}, {"script", a.script}, {"job_id", a.job_id}});
  }
  return {{"plan_version", 1},       {"fleet_file", plan.fleet_file},
          {"binary", plan.binary},   {"metaroce_root", plan.root},
          {"out", plan.out},         {"fleet", fleet_to_json(plan.fleet)},
          {"rows", std::move(rows)}, {"arrays", std::move(arrays)}};
}

Expected<FleetPlan, std::string> load_plan(const std::string& path) {
  auto doc = JsonDocument::load(path);
  if (!doc) return Unexpected(doc.error());
  const Json& j = doc->value();
  FleetPlan plan;
  try {
    if (j.at("plan_version").get<int>() != 1) {
      return Unexpected(doc->where("plan_version") + ": this harness reads version 1");
    }
    plan.fleet_file = j.at("fleet_file").get<std::string>();
    plan.binary = j.at("binary").get<std::string>();
    plan.root = j.at("metaroce_root").get<std::string>();
    plan.out = j.at("out").get<std::string>();
    // Paths in the plan are absolute already: no folder to resolve against.
    auto fleet = parse_fleet(j.at("fleet").dump(2), path + " (member fleet)", "");
    if (!fleet) return Unexpected(fleet.error());
    plan.fleet = std::move(*fleet);
    for (const Json& a : j.at("arrays")) {
      PlannedArray array{a.at("node").get<std::string>(), a.at("rows").get<std::vector<size_t>>(),
                         a.at("script").get<std::string>(), a.at("job_id").get<std::string>()};
      for (size_t row : array.rows) {
        if (row >= plan.fleet.rows.size()) {
          return Unexpected(doc->where("arrays") + ": row " + std::to_string(row) +
                            " is not in the fleet");
        }
      }
      plan.arrays.push_back(std::move(array));
    }
  } catch (const nlohmann::json::exception& e) {
    return Unexpected(path + ": not a fleet plan: " + e.what());
  }
  return plan;
}

}  // namespace mr::fleet
