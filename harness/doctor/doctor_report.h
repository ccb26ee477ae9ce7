// File: doctor_report.h
//
// What `metaroce doctor` answers, locally, from an agent (op "doctor") and in every run's
// manifest: the findings, and the facts they were drawn from as JSON (devices, ports,
// GIDs, netdevs, QoS). The JSON form is the agent's reply body:
//
//   {"findings":[{"severity":"error","check":"port.state","subject":"rxe0 port 1",
//                 "message":"DOWN, Disabled (not ACTIVE)","remedy":"ip link set eth0 up"}],
//    "facts":{"root":"/","hostname":"dut","kernel":"6.1.0-28-amd64","devices":[...],...}}
//
//   DoctorReport r = run_doctor(inspect_options_for("/"));
//   std::puts(render_text(r).c_str());
//   auto back = report_from_json(to_json(r));  // == r
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/doctor/finding.h"
#include "reference/error/expected.h"

namespace mr::doctor {

using Json = nlohmann::ordered_json;

struct DoctorReport {
  std::vector<Finding> findings;
  Json facts = Json::object();

  Severity worst() const;  // kOk when there are no findings
  bool has_error() const { return worst() == Severity::kError; }
  bool operator==(const DoctorReport&) const = default;
};

Json to_json(const DoctorReport& r);
// The reverse, for a report that came from an agent: errors name the offending field.
Expected<DoctorReport, std::string> report_from_json(const Json& j);

// One line per finding, then a summary line ("1 error, 2 warnings, 5 ok").
std::string render_text(const DoctorReport& r);

}  // namespace mr::doctor
