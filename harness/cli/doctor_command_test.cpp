// `metaroce doctor`'s exit codes: 0 healthy, 1 an error finding, 2 the doctor could not run.
#include "harness/cli/doctor_command.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "harness/agent/agent_server.h"
#include "harness/agent/reference_backend.h"
#include "harness/doctor/testing/fake_host.h"
#include "reference/io/clock.h"
#include "reference/io/memory_link.h"

namespace mr::cli {
namespace {

using doctor::testing::FakeHost;

int doctor(const std::string& args) {
  CLI::App app;
  Runner run = setup_doctor(app);
  app.parse(args, false);
  return run();
}

TEST(DoctorCommand, HealthyHostExitsZero) {
  FakeHost host;
  host.add_rxe("rxe0", "eth0");
  // Under a root the active MTU is unknown (a warning), which is no error.
  EXPECT_EQ(doctor("--root " + host.root()), kExitOk);
  EXPECT_EQ(doctor("--json --root " + host.root()), kExitOk);
}

TEST(DoctorCommand, ErrorFindingExitsOne) {
  FakeHost no_device;
  EXPECT_EQ(doctor("--root " + no_device.root()), kExitFailed);
  FakeHost down;
  down.add_rxe("rxe0", "eth0");
  down.write("sys/class/infiniband/rxe0/ports/1/state", "1: DOWN");
  EXPECT_EQ(doctor("--root " + down.root()), kExitFailed);
}

TEST(DoctorCommand, EmbeddedDutHasNothingToCheck) { EXPECT_EQ(doctor("--dut embedded"), kExitOk); }

TEST(DoctorCommand, HarnessErrorsExitTwo) {
  EXPECT_EQ(doctor("--dut rxe"), kExitHarnessError);
  EXPECT_EQ(doctor("--dut agent://127.0.0.1"), kExitHarnessError);
  EXPECT_EQ(doctor("--dut agent://127.0.0.1:7000"), kExitHarnessError);  // no token
  EXPECT_EQ(doctor("--dut agent://127.0.0.1:7000 --token t --root /tmp"), kExitHarnessError);
  // Port 1 on loopback: nothing listens there, the connection is refused.
  EXPECT_EQ(doctor("--dut agent://127.0.0.1:1 --token t"), kExitHarnessError);
}

// A reference agent whose doctor inspects a fake tree: the CLI's exit code follows it.
class AgentDoctor : public ::testing::Test {
 protected:
  int ask(const FakeHost& host, const std::string& token) {
    io::VirtualClock clock{0};
    io::MemoryLinkPair pair{clock, {}};
    agent::ReferenceBackend backend{pair.a(), clock, {}};
    agent::RequestDispatcher dispatcher{backend, "reference"};
    dispatcher.set_doctor_options(doctor::inspect_options_for(host.root()));
    auto server =
        agent::AgentServer::listen({.port = 0, .token = "tok", .tick_ms = 20}, dispatcher);
    if (!server) {
      ADD_FAILURE() << server.error();
      return -1;
    }
    std::atomic<bool> stop{false};
    std::thread serving([&] { server->serve_one(stop, 5'000); });
    const int code =
        doctor("--dut agent://127.0.0.1:" + std::to_string(server->port()) + " --token " + token);
    stop = true;
    serving.join();
    return code;
  }
};

TEST_F(AgentDoctor, ExitCodeFollowsTheAgentsFindings) {
  FakeHost healthy;
  healthy.add_rxe("rxe0", "eth0");
  EXPECT_EQ(ask(healthy, "tok"), kExitOk);
  FakeHost no_device;
  EXPECT_EQ(ask(no_device, "tok"), kExitFailed);
}

TEST_F(AgentDoctor, WrongTokenIsAHarnessError) {
  FakeHost healthy;
  EXPECT_EQ(ask(healthy, "wrong"), kExitHarnessError);
}

}  // namespace
}  // namespace mr::cli
