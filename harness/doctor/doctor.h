// File: doctor.h
//
// The doctor in one call: inspect a host (host_inspector.h), judge what was seen
// (judge.h), and return the report with its facts (doctor_report.h). Used by
// `metaroce doctor`, the agent's "doctor" op and the run manifest alike.
//
//   DoctorReport r = run_doctor(inspect_options_for("/"));
//   return r.has_error() ? kExitFailed : kExitOk;
#pragma once

#include "harness/doctor/doctor_report.h"
#include "harness/doctor/host_inspector.h"

namespace mr::doctor {

DoctorReport run_doctor(const InspectOptions& options);

}  // namespace mr::doctor
