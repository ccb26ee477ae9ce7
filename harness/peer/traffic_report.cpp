#include "harness/peer/traffic_report.h"

#include <cstdio>

namespace mr::peer {

std::string TrafficReport::describe() const {
  char text[160];
  const double mbit = seconds > 0 ? static_cast<double>(bytes) * 8 / seconds / 1e6 : 0;
  std::snprintf(text, sizeof text, "%llu sent, %llu received, %llu bytes in %.3f s (%.2f Mbit/s)",
                static_cast<unsigned long long>(messages_sent),
                static_cast<unsigned long long>(messages_received),
                static_cast<unsigned long long>(bytes), seconds, mbit);
  return tool_says.empty() ? std::string(text) : std::string(text) + "; tool reported " + tool_says;
}

}  // namespace mr::peer
