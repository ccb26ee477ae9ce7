#include "harness/cli/replay_command.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <regex>
#include <string>

#include "harness/cli/repository_file.h"
#include "harness/cli/run_command.h"
#include "harness/replay/capture_injector.h"
#include "harness/replay/script_from_capture.h"

namespace mr::cli {
namespace {

struct ReplayOptions {
  std::string file;
  size_t connection = 0;
  bool connection_given = false;
  std::string to_script;
  std::string inject;  // an interface: the frames go out unchanged, no DUT
  bool fast = false;
  RunOptions run;  // --dut and the rest, as `run` takes them
  bool dut_given = false;
};

// --fast: every request goes out as soon as the previous line is done.
std::string without_pacing(const std::string& script) {
  static const std::regex kPaced(R"(^\+[0-9.]+( +<))", std::regex::multiline);
  return std::regex_replace(script, kPaced, "+0$1");
}

// --inject IF: tcpreplay's job, through the harness's own send path (PcapLink).
int inject(const ReplayOptions& o) {
  replay::InjectOptions options{.fast = o.fast};
  if (o.connection_given) options.connection = o.connection;
  auto r = replay::inject_capture_onto(o.file, o.inject, options);
  if (!r) {
    std::fprintf(stderr, "metaroce replay: %s\n", r.error().c_str());
    return kExitHarnessError;
  }
  const double seconds = static_cast<double>(r->elapsed_ns) / 1e9;
  std::printf("injected %llu of %llu frames onto %s in %.6f s (%.0f frames/s)\n",
              static_cast<unsigned long long>(r->sent),
              static_cast<unsigned long long>(r->frames_in_capture), o.inject.c_str(), seconds,
              seconds > 0 ? static_cast<double>(r->sent) / seconds : 0.0);
  return kExitOk;
}

int replay(ReplayOptions& o) {
  if (!o.inject.empty()) {
    if (o.dut_given || !o.to_script.empty()) {
      std::fprintf(stderr,
                   "metaroce replay: --inject sends the capture unchanged; it takes "
                   "neither --dut nor --to-script\n");
      return kExitHarnessError;
    }
    return inject(o);
  }
  auto connection = replay::extract_connection(o.file, o.connection);
  if (!connection) {
    std::fprintf(stderr, "metaroce replay: %s\n", connection.error().c_str());
    return kExitHarnessError;
  }
  const std::string name = std::filesystem::path(o.file).filename().string();
  auto script = replay::script_from_connection(
      *connection, {.capture_name = name, .connection_index = o.connection, .tp_id = "REPLAY-001"});
  if (!script) {
    std::fprintf(stderr, "metaroce replay: %s\n", script.error().c_str());
    return kExitHarnessError;
  }
  const std::string text = o.fast ? without_pacing(*script) : *script;
  std::fprintf(stderr,
               "metaroce replay: connection %zu of %zu: %s QPN 0x%x -> %s QPN 0x%x, %zu packets\n",
               o.connection, connection->connections_in_capture, connection->requester_ip.c_str(),
               connection->requester_qpn, connection->responder_ip.c_str(),
               connection->responder_qpn, connection->packets.size());
  if (!connection->file_error.empty()) {
    std::fprintf(stderr, "metaroce replay: warning: the capture ends early: %s\n",
                 connection->file_error.c_str());
  }
  if (!connection->omitted.empty()) {
    std::fprintf(stderr,
                 "metaroce replay: warning: %zu frames could not be decoded and are not "
                 "replayed (the script's comments name them)\n",
                 connection->omitted.size());
  }
  if (!o.to_script.empty()) {
    std::ofstream out(o.to_script);
    out << text;
    if (!out) {
      std::fprintf(stderr, "metaroce replay: cannot write %s\n", o.to_script.c_str());
      return kExitHarnessError;
    }
    std::fprintf(stderr, "metaroce replay: wrote %s\n", o.to_script.c_str());
    if (!o.dut_given) return kExitOk;
  }
  // The test case goes into the run directory, and `run` plays it against the DUT.
  const std::string dir = o.run.out + "/replay-testcases";
  std::filesystem::create_directories(dir);
  {
    std::ofstream out(dir + "/REPLAY-001.mrt");
    out << text;
    if (!out) {
      std::fprintf(stderr, "metaroce replay: cannot write %s/REPLAY-001.mrt\n", dir.c_str());
      return kExitHarnessError;
    }
  }
  o.run.testcases = dir;
  o.run.filter.clear();
  return run_with(o.run);
}

}  // namespace

Runner setup_replay(CLI::App& app) {
  auto o = std::make_shared<ReplayOptions>();
  o->run.out = repository_file("reports/replay");
  app.add_option("file", o->file, "the capture (pcap or pcapng)")->required();
  app.add_option("--connection", o->connection,
                 "which connection, in order of first request (default 0; with --inject, "
                 "all frames unless given)")
      ->each([o](const std::string&) { o->connection_given = true; });
  app.add_option("--to-script", o->to_script, "write the connection as a test case to this file");
  app.add_option("--inject", o->inject,
                 "send the capture's frames unchanged onto this interface, as tcpreplay does "
                 "(no DUT, nothing rewritten)");
  app.add_flag("--fast", o->fast, "inject as fast as possible instead of as recorded");
  add_dut_options(app, o->run)->each([o](const std::string&) { o->dut_given = true; });
  app.add_option("--out", o->run.out, "run directory (default reports/replay)");
  return [o] { return replay(*o); };
}

}  // namespace mr::cli
