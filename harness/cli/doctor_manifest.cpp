#include "harness/cli/doctor_manifest.h"

#include <string>

#include "harness/doctor/doctor_report.h"
#include "harness/protocol/dut_client.h"

namespace mr::cli {

nlohmann::ordered_json doctor_for_manifest(std::string_view dut, engine::DutPort& port) {
  if (dut == "reference" || dut == "embedded") {
    return {{"skipped", "embedded reference DUT: it runs inside the harness and has no host"}};
  }
  protocol::DutClient client([&port](protocol::Json r) { return port.control(std::move(r)); });
  auto reply = client.doctor();
  if (!reply) return {{"error", reply.error().to_string()}};
  auto report = doctor::report_from_json(nlohmann::ordered_json::parse(
      reply->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)));
  if (!report) return {{"error", "the agent's doctor reply: " + report.error()}};
  nlohmann::ordered_json j = {{"worst", doctor::severity_name(report->worst())}};
  j.update(doctor::to_json(*report));
  return j;
}

}  // namespace mr::cli
