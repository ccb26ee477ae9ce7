#include "harness/engine/suite_check.h"

#include <array>
#include <map>
#include <sstream>

#include "harness/engine/pics_predicate.h"
#include "harness/script/did_you_mean.h"
#include "reference/mutants/mutant.h"

namespace mr::engine {
namespace {

constexpr std::array<std::string_view, 3> kGroups{"BV", "BI", "BO"};

std::vector<std::string> words(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

class HeaderCheck {
 public:
  HeaderCheck(script::ParseResult& test, const spec::ClauseCatalog& catalog)
      : test_(test), catalog_(catalog) {}

  void run() {
    for (const auto& id : words(value("clause"))) {
      if (catalog_.find(id) == nullptr)
        add("clause", "clause " + id + " is not in the clause catalog" +
                          script::did_you_mean(id, catalog_.ids()));
    }
    if (test_.script.metadata.contains("group")) {
      const std::string group = value("group");
      if (std::ranges::find(kGroups, group) == kGroups.end())
        add("group", "group " + group +
                         " is not BV (valid behaviour), BI (invalid behaviour) or "
                         "BO (inopportune behaviour)");
    }
    if (test_.script.metadata.contains("pics")) {
      if (auto ok = evaluate_pics(value("pics"), catalog_.all_features()); !ok)
        add("pics", "pics: " + ok.error());
    }
    for (const auto& name : words(value("kills"))) {
      if (mutants::mutant_by_name(name)) continue;
      // The names for the hint only when there is a typo: most headers have none.
      std::vector<std::string_view> known;
      for (const auto& m : mutants::all_mutants()) known.push_back(m.name);
      add("kills", "kills: no mutant named " + name + script::did_you_mean(name, known));
    }
  }

  void add(const std::string& key, std::string message) {
    auto it = test_.script.metadata_pos.find(key);
    test_.diagnostics.push_back(
        {test_.script.path,
         it == test_.script.metadata_pos.end() ? script::Position{1, 1} : it->second,
         std::move(message)});
  }

 private:
  std::string value(const std::string& key) const {
    auto it = test_.script.metadata.find(key);
    return it == test_.script.metadata.end() ? "" : it->second;
  }

  script::ParseResult& test_;
  const spec::ClauseCatalog& catalog_;
};

}  // namespace

void check_suite(std::span<script::ParseResult> suite, const spec::ClauseCatalog& catalog) {
  std::map<std::string, std::vector<size_t>> by_tp;
  for (size_t i = 0; i < suite.size(); ++i) {
    HeaderCheck(suite[i], catalog).run();
    if (suite[i].script.metadata.contains("tp"))
      by_tp[suite[i].script.metadata.at("tp")].push_back(i);
  }
  for (const auto& [tp, files] : by_tp) {
    if (files.size() < 2) continue;
    for (size_t i : files) {
      std::string others;
      for (size_t j : files) {
        if (j == i) continue;
        if (!others.empty()) others += ", ";
        others += suite[j].script.path;
      }
      std::string message = "tp " + tp;
      message += " is also the tp of ";
      message += others;
      HeaderCheck(suite[i], catalog).add("tp", std::move(message));
    }
  }
}

}  // namespace mr::engine
