// File: clause_catalog.h
//
// The clause catalog, docs/spec/clauses.json (generated from docs/spec/metaroce.md), read
// once into values: the clauses with their level and statement, and the PICS features.
// The one reader of that file for run, list, the reports and the suite's checks, so that a
// clause id means the same everywhere. Errors name the file and the field
// ("docs/spec/clauses.json: clauses[3].level: expected a string").
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "reference/error/expected.h"

namespace mr::spec {

struct Clause {
  std::string id;         // MR-PS-05
  std::string area;       // PS
  std::string part;       // base, ext
  std::string level;      // MUST, MUST-IF, SHOULD, MAY
  std::string statement;  // the requirement, one sentence
  std::string pics;       // the PICS predicate that makes it apply
  std::string section;    // where metaroce.md states it
};

struct PicsFeature {
  std::string key;  // rc.read
  std::string meaning;
};

class ClauseCatalog {
 public:
  ClauseCatalog() = default;
  static Expected<ClauseCatalog, std::string> load(const std::string& path);
  // `source` names the document in errors.
  static Expected<ClauseCatalog, std::string> from_json(nlohmann::ordered_json document,
                                                        const std::string& source);

  const Clause* find(std::string_view id) const;
  std::span<const Clause> clauses() const { return clauses_; }
  std::span<const PicsFeature> pics_features() const { return features_; }
  std::vector<std::string_view> ids() const;
  // Every PICS key, claimed: the map a predicate is checked against for unknown keys.
  std::map<std::string, bool> all_features() const;
  // The clauses as the document lists them, for report.json.
  const nlohmann::ordered_json& clauses_json() const { return clauses_json_; }

 private:
  std::vector<Clause> clauses_;
  std::vector<PicsFeature> features_;
  std::map<std::string, size_t, std::less<>> index_;
  nlohmann::ordered_json clauses_json_ = nlohmann::ordered_json::array();
};

}  // namespace mr::spec
