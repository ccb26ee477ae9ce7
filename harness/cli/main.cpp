// The `metaroce` command line: one table of subcommands (DESIGN.md, "The CLI").
#include <CLI/CLI.hpp>
#include <array>
#include <cstdio>
#include <exception>
#include <vector>

#include "harness/cli/agent_command.h"
#include "harness/cli/analyze_command.h"
#include "harness/cli/command.h"
#include "harness/cli/decode_command.h"
#include "harness/cli/doctor_command.h"
#include "harness/cli/fabric_command.h"
#include "harness/cli/fleet_command.h"
#include "harness/cli/interop_command.h"
#include "harness/cli/list_command.h"
#include "harness/cli/merge_command.h"
#include "harness/cli/mutants_command.h"
#include "harness/cli/peer_command.h"
#include "harness/cli/replay_command.h"
#include "harness/cli/run_command.h"

namespace mr::cli {
namespace {

constexpr std::array kCommands{
    Command{"run", "run the conformance suite against a DUT and write reports", setup_run},
    Command{"merge", "join the run directories of a sharded run (run --shard I/N) into one",
            setup_merge},
    Command{"list", "every clause with its test purposes, and the uncovered ones", setup_list},
    Command{"decode", "decode a pcap/pcapng capture, one record per frame", setup_decode},
    Command{"replay", "one connection of a capture as a test case, or replayed against a DUT",
            setup_replay},
    Command{"analyze", "clause violations found passively in a pcap/pcapng capture", setup_analyze},
    Command{"agent", "serve a device under test over the DUT control protocol", setup_agent},
    Command{"doctor", "RDMA readiness of the DUT host: devices, ports, GIDs, MTU, ECN, PFC",
            setup_doctor},
    Command{"mutants", "run the suite against every mutated reference; print the kill rate",
            setup_mutants},
    Command{"peer", "the reference as the peer of unmodified ibv_rc_pingpong and perftest tools",
            setup_peer},
    Command{"interop", "the interop matrix: the reference and Linux rxe as peers, impaired",
            setup_interop},
    Command{"fabric", "the multi-plane fabric, in real time, between interfaces of this namespace",
            setup_fabric},
    Command{"fleet", "qualify a fleet of nodes or DUTs on Slurm: submit, then --collect",
            setup_fleet},
};

int run(int argc, char** argv) {
  CLI::App app{"metaroce: MetaRoCE / RoCEv2 conformance and interoperability harness"};
  app.require_subcommand(1);
  std::vector<std::pair<CLI::App*, Runner>> runners;
  for (const auto& c : kCommands) {
    CLI::App* sub = app.add_subcommand(c.name, c.summary);
    runners.emplace_back(sub, c.setup(*sub));
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? kExitOk : kExitHarnessError;
  }
  for (auto& [sub, runner] : runners) {
    if (sub->parsed()) return runner();
  }
  return kExitHarnessError;
}

}  // namespace
}  // namespace mr::cli

int main(int argc, char** argv) {
  try {
    return mr::cli::run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "metaroce: internal error: %s\n", e.what());
    return mr::cli::kExitHarnessError;
  }
}
