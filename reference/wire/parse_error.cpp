#include "reference/wire/parse_error.h"

namespace mr::wire {

std::string ParseError::to_string() const {
  std::string s = header;
  if (!field.empty()) s += "." + field;
  s += " at byte " + std::to_string(offset) + ": " + reason;
  return s;
}

}  // namespace mr::wire
