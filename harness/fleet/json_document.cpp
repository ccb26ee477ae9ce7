#include "harness/fleet/json_document.h"

#include <fstream>
#include <istream>
#include <optional>
#include <set>
#include <sstream>
#include <streambuf>
#include <utility>
#include <vector>

namespace mr::fleet {
namespace {

// The text as a stream whose read position is the parser's: nlohmann's stream input reads
// one character at a time through sbumpc(), so gptr() is where its lexer is.
class PositionedBuffer : public std::streambuf {
 public:
  explicit PositionedBuffer(std::string_view text) {
    // setg wants char*; the buffer is only ever read.
    char* begin = const_cast<char*>(text.data());
    setg(begin, begin, begin + text.size());
  }
  size_t consumed() const { return static_cast<size_t>(gptr() - eback()); }
};

// Follows one parse: the path of every value, the line it starts on, the first duplicate.
class LineRecorder {
 public:
  LineRecorder(std::string_view text, const PositionedBuffer& buffer)
      : text_(text), buffer_(buffer) {}

  bool on_event(nlohmann::json::parse_event_t event, const nlohmann::json& parsed) {
    using Event = nlohmann::json::parse_event_t;
    switch (event) {
      case Event::object_start:
      case Event::array_start: {
        const std::string path = value_path();
        record(path);
        levels_.push_back({event == Event::object_start, path, {}, {}, 0});
        break;
      }
      case Event::key: {
        if (levels_.empty() || !parsed.is_string()) break;
        Level& level = levels_.back();
        level.key = parsed.get<std::string>();
        const std::string path = member_path(level.path, level.key);
        if (!level.keys.insert(level.key).second && !duplicate_) {
          duplicate_ = {path, current_line()};
        }
        record(path);
        break;
      }
      case Event::object_end:
      case Event::array_end:
        if (!levels_.empty()) levels_.pop_back();
        value_done();
        break;
      case Event::value:
        if (!levels_.empty() && !levels_.back().object) record(value_path());
        value_done();
        break;
    }
    return true;
  }

  std::map<std::string, int, std::less<>> take_lines() { return std::move(lines_); }
  const std::optional<std::pair<std::string, int>>& duplicate() const { return duplicate_; }

 private:
  struct Level {
    bool object = true;
    std::string path;
    std::set<std::string> keys;
    std::string key;
    size_t index = 0;
  };

  // The line of the last character the lexer read (a number's lookahead may be the line
  // feed after it: that one does not count).
  int current_line() {
    const size_t last = buffer_.consumed() == 0 ? 0 : buffer_.consumed() - 1;
    for (; counted_ < last && counted_ < text_.size(); ++counted_) {
      if (text_[counted_] == '\n') ++line_;
    }
    return line_;
  }
  void record(const std::string& path) { lines_.emplace(path, current_line()); }
  std::string value_path() const {
    if (levels_.empty()) return "";
    const Level& level = levels_.back();
    return level.object ? member_path(level.path, level.key)
                        : element_path(level.path, level.index);
  }
  void value_done() {
    if (!levels_.empty() && !levels_.back().object) ++levels_.back().index;
  }

  std::string_view text_;
  const PositionedBuffer& buffer_;
  size_t counted_ = 0;
  int line_ = 1;
  std::vector<Level> levels_;
  std::map<std::string, int, std::less<>> lines_;
  std::optional<std::pair<std::string, int>> duplicate_;
};

}  // namespace

std::string member_path(std::string_view parent, std::string_view key) {
  std::string path(parent);
  if (!path.empty()) path += '.';
  path += key;
  return path;
}

std::string element_path(std::string_view parent, size_t index) {
  return std::string(parent) + "[" + std::to_string(index) + "]";
}

Expected<JsonDocument, std::string> JsonDocument::parse(std::string_view text, std::string origin) {
  PositionedBuffer buffer(text);
  std::istream in(&buffer);
  LineRecorder recorder(text, buffer);
  JsonDocument doc;
  try {
    doc.value_ = nlohmann::json::parse(
        in, [&recorder](int /*depth*/, nlohmann::json::parse_event_t event,
                        nlohmann::json& parsed) { return recorder.on_event(event, parsed); });
  } catch (const nlohmann::json::exception& e) {
    return Unexpected(origin + ": " + e.what());
  }
  if (const auto& dup = recorder.duplicate()) {
    return Unexpected(origin + ":" + std::to_string(dup->second) + ": " + dup->first +
                      ": named twice in one object (JSON keeps only the last)");
  }
  doc.lines_ = recorder.take_lines();
  doc.origin_ = std::move(origin);
  return doc;
}

Expected<JsonDocument, std::string> JsonDocument::load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Unexpected(path + ": cannot read");
  std::ostringstream text;
  text << in.rdbuf();
  return parse(text.str(), path);
}

int JsonDocument::line_of(std::string_view path) const {
  std::string p(path);
  while (!p.empty()) {
    if (auto it = lines_.find(p); it != lines_.end()) return it->second;
    // The parent: drop the last ".key" or "[i]".
    const size_t cut = p.find_last_of(".[");
    p.resize(cut == std::string::npos ? 0 : cut);
  }
  return 1;
}

std::string JsonDocument::where(std::string_view path) const {
  return origin_ + ":" + std::to_string(line_of(path)) + ": " + std::string(path);
}

}  // namespace mr::fleet
