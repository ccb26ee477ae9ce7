#include "harness/doctor/doctor.h"

#include "harness/doctor/host_facts_json.h"
#include "harness/doctor/judge.h"

namespace mr::doctor {

DoctorReport run_doctor(const InspectOptions& options) {
  const HostFacts facts = HostInspector(options).inspect();
  return {judge(facts), to_json(facts)};
}

}  // namespace mr::doctor
