#include "harness/dut/agent_url.h"

#include <string_view>

#include "harness/agent/socket_io.h"

namespace mr::dut {

Expected<std::pair<std::string, uint16_t>, std::string> parse_agent_url(const std::string& url) {
  constexpr std::string_view kScheme = "agent://";
  if (!url.starts_with(kScheme)) {
    return Unexpected("--dut " + url + ": not reference, rxe or agent://HOST:PORT");
  }
  auto hp = agent::split_host_port(std::string_view(url).substr(kScheme.size()));
  if (!hp) return Unexpected("--dut " + url + ": " + hp.error());
  if (hp->first.empty()) return Unexpected("--dut " + url + ": no host before the port");
  // Port 0 asks the kernel for any port when listening; as a destination it means nothing.
  if (hp->second == 0) return Unexpected("--dut " + url + ": the port must be 1..65535");
  return *hp;
}

}  // namespace mr::dut
