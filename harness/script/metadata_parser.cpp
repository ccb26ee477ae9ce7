#include "harness/script/metadata_parser.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <utility>

#include "harness/script/did_you_mean.h"
#include "harness/script/parser.h"

namespace mr::script {
namespace {

// The keys a test case's header carries, as the unknown-key error lists them. `timeout` and
// `requires` were accepted once and read by nothing: a key that silently does nothing is
// worse than an error, so they are unknown now (`pics` gates a test).
constexpr std::array<std::string_view, 7> kTestCaseKeys{
    "tp", "clause", "pics", "group", "purpose", "kills", "positive-path"};
// Also accepted, not listed: `clauses` (clause's plural) and the keys of the harness's own
// self-test scripts.
constexpr std::array<std::string_view, 4> kOtherKeys{"clauses", "mutant", "expect-verdict",
                                                     "expect-failure"};

std::string trim(std::string_view s) {
  size_t b = 0;
  size_t e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

// A key where it begins in the comment's body.
struct KeyAt {
  size_t at;
  std::string key;
};

// The "word:" keys of "tp: RC-PSN-004     clause: MR-PS-04 MR-PS-05", each followed by a
// space or the end. A key begins the body or follows two spaces; after one space only a
// known key, and only before free text (purpose, positive-path) has begun on the line, so
// "tp: X-1 clause: MR-QS-03" reads as two keys and a purpose may say "group: ...".
std::vector<KeyAt> find_keys(std::string_view body) {
  std::vector<KeyAt> keys;
  bool free_text = false;
  for (size_t i = 0; i < body.size(); ++i) {
    const bool two_spaces = i >= 2 && body[i - 1] == ' ' && body[i - 2] == ' ';
    const bool one_space = i >= 1 && body[i - 1] == ' ' && !free_text;
    if (!(i == 0 || two_spaces || one_space) || !std::isalpha(static_cast<unsigned char>(body[i])))
      continue;
    size_t j = i;
    while (j < body.size() &&
           (std::isalnum(static_cast<unsigned char>(body[j])) || body[j] == '-' || body[j] == '_'))
      ++j;
    if (j < body.size() && body[j] == ':' && (j + 1 == body.size() || body[j + 1] == ' ')) {
      std::string key(body.substr(i, j - i));
      if (i != 0 && !two_spaces && !is_metadata_key(key)) continue;
      free_text = key == "purpose" || key == "positive-path";
      keys.push_back({i, std::move(key)});
    }
  }
  return keys;
}

}  // namespace

bool is_metadata_key(std::string_view key) {
  return std::ranges::find(kTestCaseKeys, key) != kTestCaseKeys.end() ||
         std::ranges::find(kOtherKeys, key) != kOtherKeys.end();
}

void MetadataParser::comment(std::string_view line, int line_no) {
  const std::string trimmed = trim(line);
  // The body after '#' and one space: a column is its index + 3.
  std::string_view body = std::string_view(trimmed).substr(1);
  if (body.starts_with(' ')) body.remove_prefix(1);
  const std::vector<KeyAt> keys = find_keys(body);
  if (keys.empty() || keys.front().at != 0) {
    // No key of its own: the line goes on with the previous key's value, if any.
    if (!last_key_.empty()) script_.metadata[last_key_] += " " + trim(body);
    return;
  }
  for (size_t k = 0; k < keys.size(); ++k) {
    const auto& [at, key] = keys[k];
    if (!is_metadata_key(key)) {
      diags_.push_back(
          {file_,
           {line_no, static_cast<int>(at) + 3},
           "unknown metadata key '" + key + "' (known: " + joined(kTestCaseKeys) + ")"});
      continue;
    }
    const size_t value_start = at + key.size() + 1;
    const size_t value_end = k + 1 < keys.size() ? keys[k + 1].at : body.size();
    size_t value_at = value_start;
    while (value_at < body.size() && body[value_at] == ' ') ++value_at;
    add_value(key, trim(body.substr(value_start, value_end - value_start)),
              {line_no, static_cast<int>(value_at) + 3});
  }
}

void MetadataParser::add_value(std::string_view key, std::string_view value, Position at) {
  const std::string name(key == "clauses" ? "clause" : key);
  script_.metadata_pos.try_emplace(name, at);
  auto& slot = script_.metadata[name];
  if (!slot.empty()) slot += ' ';
  slot += value;
  last_key_ = name;
}

void MetadataParser::finish() {
  for (const char* required : {"tp", "clause", "purpose"}) {
    if (!script_.metadata.contains(required)) {
      diags_.push_back({file_, {1, 1}, std::string("missing metadata '# ") + required + ": ...'"});
    }
  }
}

}  // namespace mr::script
