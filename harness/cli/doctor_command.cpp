#include "harness/cli/doctor_command.h"

#include <cstdio>
#include <memory>
#include <string>

#include "harness/doctor/doctor.h"
#include "harness/dut/agent_url.h"
#include "harness/dut/dut_control.h"

namespace mr::cli {
namespace {

struct DoctorOptions {
  std::string dut;  // "": this host
  std::string token;
  std::string token_file;
  std::string root = "/";
  bool json = false;
  uint64_t timeout_ms = 60'000;
};

constexpr const char* kEmbeddedNote =
    "the embedded reference DUT runs inside the harness: it has no host of its own to inspect";

int harness_error(const std::string& message) {
  std::fprintf(stderr, "metaroce doctor: %s\n", message.c_str());
  return kExitHarnessError;
}

Expected<std::string, std::string> read_token(const DoctorOptions& o) {
  if (!o.token.empty()) return o.token;
  if (o.token_file.empty())
    return Unexpected(std::string("agent://: give --token or --token-file"));
  return dut::read_token_file(o.token_file);
}

// The agent's answer to "doctor", as a report.
Expected<doctor::DoctorReport, std::string> ask_agent(const DoctorOptions& o) {
  auto address = dut::parse_agent_url(o.dut);
  if (!address) return Unexpected(address.error());
  auto token = read_token(o);
  if (!token) return Unexpected(token.error());
  auto control = dut::DutControl::connect(address->first, address->second, *token);
  if (!control) return Unexpected(o.dut + ": " + control.error().to_string());
  protocol::DutClient client = dut::typed_client(*control, o.timeout_ms);
  auto reply = client.doctor();
  if (!reply) return Unexpected(o.dut + ": doctor: " + reply.error().to_string());
  (void)client.bye();
  auto report = doctor::report_from_json(*reply);
  if (!report) return Unexpected(o.dut + ": the agent's doctor reply: " + report.error());
  return report;
}

void print(const doctor::DoctorReport& r, const std::string& where, bool json) {
  if (json) {
    std::printf(
        "%s\n",
        doctor::to_json(r).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    return;
  }
  const auto text = [&](const char* key) {
    auto it = r.facts.find(key);
    return it != r.facts.end() && it->is_string() ? it->get<std::string>() : std::string("?");
  };
  std::printf("metaroce doctor: host %s (kernel %s), inspected %s\n", text("hostname").c_str(),
              text("kernel").c_str(), where.c_str());
  std::fputs(doctor::render_text(r).c_str(), stdout);
}

int run_doctor(const DoctorOptions& o) {
  doctor::DoctorReport report;
  std::string where;
  if (o.dut.empty()) {
    report = doctor::run_doctor(doctor::inspect_options_for(o.root));
    where = o.root == "/" ? "directly" : "under " + o.root;
  } else if (o.dut == "embedded" || o.dut == "reference") {
    if (o.json) {
      std::printf("%s\n", nlohmann::json{{"skipped", kEmbeddedNote}}.dump().c_str());
    } else {
      std::printf("metaroce doctor: %s; nothing to check\n", kEmbeddedNote);
    }
    return kExitOk;
  } else if (o.dut.starts_with("agent://")) {
    if (o.root != "/") return harness_error("--root inspects this host; an agent inspects its own");
    auto asked = ask_agent(o);
    if (!asked) return harness_error(asked.error());
    report = std::move(*asked);
    where = "by the agent at " + o.dut.substr(std::string("agent://").size());
  } else {
    // The rxe guest lives only as long as a run: its report is in that run's manifest.
    return harness_error("--dut " + o.dut +
                         ": expected embedded or agent://HOST:PORT (a `run --dut rxe` records "
                         "the guest's doctor report in its manifest.json)");
  }
  print(report, where, o.json);
  std::fflush(stdout);
  return report.has_error() ? kExitFailed : kExitOk;
}

}  // namespace

Runner setup_doctor(CLI::App& app) {
  auto o = std::make_shared<DoctorOptions>();
  app.add_option("--dut", o->dut,
                 "embedded | agent://HOST:PORT (default: this host, inspected directly)");
  auto* token = app.add_option("--token", o->token, "agent://: the agent's shared secret");
  app.add_option("--token-file", o->token_file, "agent://: a file whose first line is the token")
      ->excludes(token);
  app.add_option("--root", o->root, "inspect a sysfs/procfs tree under PATH instead of /");
  app.add_flag("--json", o->json, "one JSON object: findings and facts");
  return [o] { return run_doctor(*o); };
}

}  // namespace mr::cli
