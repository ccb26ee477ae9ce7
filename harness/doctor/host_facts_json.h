// File: host_facts_json.h
//
// HostFacts as the "facts" of a doctor report: what ibv_devinfo, ibdev2netdev, show_gids,
// ethtool and dcb would have shown, in one JSON object. Tool output is kept verbatim (up to
// a bound) so that a certifier can read what the judgement was made from.
#pragma once

#include "harness/doctor/doctor_report.h"
#include "harness/doctor/host_facts.h"

namespace mr::doctor {

Json to_json(const HostFacts& facts);

}  // namespace mr::doctor
