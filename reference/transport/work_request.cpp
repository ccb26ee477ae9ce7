#include "reference/transport/work_request.h"

#include "reference/transport/verbs_names.h"

namespace mr::transport {

std::string_view to_string(SendOpcode op) { return send_opcode_names()[static_cast<size_t>(op)]; }

bool send_opcode_from_string(std::string_view name, SendOpcode& out) {
  const auto names = send_opcode_names();
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == name) {
      out = static_cast<SendOpcode>(i);
      return true;
    }
  }
  return false;
}

std::string_view to_string(WcStatus s) { return wc_status_names()[static_cast<size_t>(s)]; }

std::string_view to_string(WcOpcode op) { return wc_opcode_names()[static_cast<size_t>(op)]; }

}  // namespace mr::transport
