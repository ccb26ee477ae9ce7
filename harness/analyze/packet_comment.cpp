#include "harness/analyze/packet_comment.h"

namespace mr::analyze {

bool is_tester_comment(std::string_view c) {
  return c.ends_with(" inject") || c.ends_with(" probe");
}

}  // namespace mr::analyze
