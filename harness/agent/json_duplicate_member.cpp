#include "harness/agent/json_duplicate_member.h"

#include <utility>

#include "harness/agent/json_reader.h"

namespace mr::agent {

nlohmann::json::parser_callback_t DuplicateMemberFinder::callback() {
  return [this](int /*depth*/, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    on_event(event, parsed);
    return true;
  };
}

std::string DuplicateMemberFinder::value_path() const {
  if (levels_.empty()) return "";
  const Level& level = levels_.back();
  if (level.object) return field_path(level.path, level.key);
  return level.path + "[" + std::to_string(level.index) + "]";
}

void DuplicateMemberFinder::value_done() {
  if (!levels_.empty() && !levels_.back().object) ++levels_.back().index;
}

void DuplicateMemberFinder::on_event(nlohmann::json::parse_event_t event,
                                     const nlohmann::json& parsed) {
  using Event = nlohmann::json::parse_event_t;
  switch (event) {
    case Event::object_start:
    case Event::array_start: {
      Level level;
      level.object = event == Event::object_start;
      level.path = value_path();
      levels_.push_back(std::move(level));
      break;
    }
    case Event::key: {
      if (levels_.empty() || !parsed.is_string()) break;
      Level& level = levels_.back();
      level.key = parsed.get<std::string>();
      if (!level.keys.insert(level.key).second && !first_) {
        first_ = field_path(level.path, level.key);
      }
      break;
    }
    case Event::object_end:
    case Event::array_end:
      if (!levels_.empty()) levels_.pop_back();
      value_done();
      break;
    case Event::value:
      value_done();
      break;
  }
}

}  // namespace mr::agent
