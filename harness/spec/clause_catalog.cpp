#include "harness/spec/clause_catalog.h"

#include <fstream>

namespace mr::spec {
namespace {

Expected<std::string, std::string> text_field(const nlohmann::ordered_json& j,
                                              const std::string& where, const char* key,
                                              bool required) {
  auto it = j.find(key);
  if (it == j.end()) {
    if (!required) return std::string();
    return Unexpected(where + "." + key + ": missing");
  }
  if (!it->is_string()) return Unexpected(where + "." + key + ": expected a string");
  return it->get<std::string>();
}

}  // namespace

Expected<ClauseCatalog, std::string> ClauseCatalog::load(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Unexpected(path + ": cannot read");
  try {
    return from_json(nlohmann::ordered_json::parse(in), path);
  } catch (const nlohmann::json::exception& e) {
    return Unexpected(path + ": " + e.what());
  }
}

Expected<ClauseCatalog, std::string> ClauseCatalog::from_json(nlohmann::ordered_json document,
                                                              const std::string& source) {
  ClauseCatalog c;
  if (!document.is_object() || !document.contains("clauses") || !document["clauses"].is_array())
    return Unexpected(source + ": clauses: expected an array");
  const auto& clauses = document["clauses"];
  for (size_t i = 0; i < clauses.size(); ++i) {
    const std::string where = source + ": clauses[" + std::to_string(i) + "]";
    if (!clauses[i].is_object()) return Unexpected(where + ": expected an object");
    Clause clause;
    for (auto [field, key, required] : {std::tuple{&clause.id, "id", true},
                                        {&clause.level, "level", true},
                                        {&clause.statement, "statement", true},
                                        {&clause.area, "area", false},
                                        {&clause.part, "part", false},
                                        {&clause.pics, "pics", false},
                                        {&clause.section, "section", false}}) {
      auto v = text_field(clauses[i], where, key, required);
      if (!v) return Unexpected(v.error());
      *field = std::move(*v);
    }
    if (!c.index_.emplace(clause.id, c.clauses_.size()).second)
      return Unexpected(where + ".id: " + clause.id + " is listed twice");
    c.clauses_.push_back(std::move(clause));
  }
  if (document.contains("pics_features")) {
    const auto& features = document["pics_features"];
    if (!features.is_array()) return Unexpected(source + ": pics_features: expected an array");
    for (size_t i = 0; i < features.size(); ++i) {
      const std::string where = source + ": pics_features[" + std::to_string(i) + "]";
      if (!features[i].is_object()) return Unexpected(where + ": expected an object");
      auto key = text_field(features[i], where, "key", true);
      if (!key) return Unexpected(key.error());
      auto meaning = text_field(features[i], where, "meaning", false);
      if (!meaning) return Unexpected(meaning.error());
      c.features_.push_back({std::move(*key), std::move(*meaning)});
    }
  }
  c.clauses_json_ = std::move(document["clauses"]);
  return c;
}

const Clause* ClauseCatalog::find(std::string_view id) const {
  auto it = index_.find(id);
  return it == index_.end() ? nullptr : &clauses_[it->second];
}

std::vector<std::string_view> ClauseCatalog::ids() const {
  std::vector<std::string_view> out;
  out.reserve(clauses_.size());
  for (const auto& c : clauses_) out.push_back(c.id);
  return out;
}

std::map<std::string, bool> ClauseCatalog::all_features() const {
  std::map<std::string, bool> out;
  for (const auto& f : features_) out[f.key] = true;
  return out;
}

}  // namespace mr::spec
