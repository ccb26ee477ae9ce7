#include "harness/engine/pics_predicate.h"

#include <cctype>
#include <vector>

namespace mr::engine {
namespace {

class PredicateParser {
 public:
  PredicateParser(const std::string& text, const std::map<std::string, bool>& features)
      : features_(features) {
    size_t i = 0;
    while (i < text.size()) {
      if (std::isspace(static_cast<unsigned char>(text[i]))) {
        ++i;
      } else if (text[i] == '(' || text[i] == ')') {
        tokens_.emplace_back(1, text[i++]);
      } else {
        size_t j = i;
        while (j < text.size() && !std::isspace(static_cast<unsigned char>(text[j])) &&
               text[j] != '(' && text[j] != ')')
          ++j;
        tokens_.push_back(text.substr(i, j - i));
        i = j;
      }
    }
  }

  Expected<bool, std::string> parse() {
    auto v = disjunction();
    if (v && pos_ != tokens_.size()) return Unexpected("unexpected '" + tokens_[pos_] + "'");
    return v;
  }

 private:
  Expected<bool, std::string> disjunction() {
    auto v = conjunction();
    while (v && peek() == "or") {
      ++pos_;
      auto r = conjunction();
      if (!r) return r;
      v = *v || *r;
    }
    return v;
  }
  Expected<bool, std::string> conjunction() {
    auto v = negation();
    while (v && peek() == "and") {
      ++pos_;
      auto r = negation();
      if (!r) return r;
      v = *v && *r;
    }
    return v;
  }
  Expected<bool, std::string> negation() {
    if (peek() == "not") {
      ++pos_;
      auto v = negation();
      if (!v) return v;
      return !*v;
    }
    if (peek() == "(") {
      ++pos_;
      auto v = disjunction();
      if (!v) return v;
      if (peek() != ")") return Unexpected(std::string("missing ')'"));
      ++pos_;
      return v;
    }
    if (pos_ >= tokens_.size()) return Unexpected(std::string("predicate ends early"));
    const std::string key = tokens_[pos_++];
    auto it = features_.find(key);
    if (it == features_.end()) return Unexpected("unknown PICS feature '" + key + "'");
    return it->second;
  }
  std::string peek() const { return pos_ < tokens_.size() ? tokens_[pos_] : ""; }

  const std::map<std::string, bool>& features_;
  std::vector<std::string> tokens_;
  size_t pos_ = 0;
};

}  // namespace

Expected<bool, std::string> evaluate_pics(const std::string& predicate,
                                          const std::map<std::string, bool>& features) {
  if (predicate.empty()) return true;
  return PredicateParser(predicate, features).parse();
}

}  // namespace mr::engine
