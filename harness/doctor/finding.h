// File: finding.h
//
// One conclusion of `metaroce doctor`: how bad (ok, warning, error), which check reached
// it, about what (a device, a port, a netdev), what was seen, and one line that says how to
// fix it, a command where there is one.
//
//   Finding f{Severity::kError, "port.state", "rxe0 port 1", "DOWN, Disabled",
//             "ip link set eth0 up"};
//   render_line(f);  // "[error] rxe0 port 1: DOWN, Disabled; fix: ip link set eth0 up"
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace mr::doctor {

// Ordered: a report is as bad as its worst finding.
enum class Severity { kOk, kWarning, kError };

std::string_view severity_name(Severity s);  // "ok", "warning", "error"
std::optional<Severity> parse_severity(std::string_view name);

struct Finding {
  Severity severity = Severity::kOk;
  std::string check;    // "rdma.device.present", "port.state", "gid.rocev2", "mtu.match", ...
  std::string subject;  // "rxe0 port 1", "eth0"; empty when about the host as a whole
  std::string message;
  std::string remedy;  // one line; empty when there is nothing to fix

  bool operator==(const Finding&) const = default;
};

// "[severity] subject: message; fix: remedy", the parts that are empty left out.
std::string render_line(const Finding& f);

}  // namespace mr::doctor
