// The doctor's judgement of fake hosts: a healthy rxe, then one fault at a time.
#include "harness/doctor/doctor.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "harness/doctor/testing/fake_host.h"

namespace mr::doctor {
namespace {

using testing::FakeHost;

// What dcb and ethtool say on a host whose NIC has DCB: PFC on priority 3, DSCP 26 -> 3.
ToolProbe dcb_capable(const std::vector<std::string>& argv) {
  ToolProbe p{"", ToolStatus::kOk, ""};
  if (argv[0] == "ethtool") {
    p.text = "Features for eth0:\nrx-checksumming: on\ntx-checksumming: on\n";
  } else if (argv[1] == "pfc") {
    p.text = "pfc-cap 8 macsec-bypass off delay 0\nprio-pfc 0:off 1:off 2:off 3:on 4:off\n";
  } else if (argv[2] == "app") {
    p.text = "dscp-prio 26:3\n";
  } else {
    p.text = "willing off ets_cap 8 cbs off\n";
  }
  return p;
}

InspectOptions options(const FakeHost& host, std::optional<uint32_t> mtu = 1024) {
  return {.root = host.root(),
          .active_mtu = [mtu](const std::string&, uint32_t) { return mtu; },
          .tools = dcb_capable};
}

const Finding* find(const DoctorReport& r, const std::string& check) {
  auto it = std::find_if(r.findings.begin(), r.findings.end(),
                         [&](const Finding& f) { return f.check == check; });
  return it == r.findings.end() ? nullptr : &*it;
}

Severity severity_of(const DoctorReport& r, const std::string& check) {
  const Finding* f = find(r, check);
  EXPECT_NE(f, nullptr) << "no finding " << check << " in\n" << render_text(r);
  return f == nullptr ? Severity::kError : f->severity;
}

TEST(Doctor, HealthyRxeIsOkOnEveryCheck) {
  FakeHost host;
  host.add_rxe("rxe0", "eth0");
  const DoctorReport r = run_doctor(options(host));
  EXPECT_EQ(r.worst(), Severity::kOk) << render_text(r);
  for (const char* check : {"rdma.device.present", "rdma.netdev", "port.state", "gid.rocev2",
                            "mtu.match", "ecn", "pfc", "dscp.trust", "offload"}) {
    EXPECT_EQ(severity_of(r, check), Severity::kOk) << check;
  }
  EXPECT_EQ(render_line(*find(r, "port.state")), "[ok] rxe0 port 1: ACTIVE, LinkUp");
  EXPECT_EQ(find(r, "rdma.device.present")->message, "node type CA, firmware 0.0.0, 1 port(s)");
  EXPECT_EQ(find(r, "gid.rocev2")->message, "RoCE v2 GID at index 1: ::ffff:198.18.0.2");
  EXPECT_EQ(find(r, "mtu.match")->message,
            "active MTU 1024 + 64 header bytes = 1088 <= netdev eth0 MTU 1500");
}

TEST(Doctor, FactsShowWhatIbvDevinfoAndIbdev2netdevWould) {
  FakeHost host;
  host.add_rxe("rxe0", "eth0");
  const Json facts = run_doctor(options(host)).facts;
  EXPECT_EQ(facts["hostname"], "fake-dut");
  EXPECT_EQ(facts["kernel"], "6.1.0-fake");
  EXPECT_EQ(facts["tcp_ecn"], 2);
  const Json& dev = facts["devices"][0];
  EXPECT_EQ(dev["name"], "rxe0");
  EXPECT_EQ(dev["netdev"], "eth0");
  EXPECT_EQ(dev["node_type"], "CA");
  const Json& port = dev["ports"][0];
  EXPECT_EQ(port["state"], "ACTIVE");
  EXPECT_EQ(port["active_mtu"], 1024);
  ASSERT_EQ(port["gids"].size(), 2U);  // the unused entries are left out
  EXPECT_EQ(port["gids"][0]["gid"], "fe80::ff:fe00:2");
  EXPECT_EQ(port["gids"][1]["type"], "RoCE v2");
  const Json& netdev = facts["netdevs"][0];
  EXPECT_EQ(netdev["mtu"], 1500);
  EXPECT_EQ(netdev["pfc_priorities"], Json::array({3}));
  EXPECT_EQ(netdev["dscp_prio"]["26"], 3);
  EXPECT_EQ(netdev["sysctl"]["rp_filter"], "0");
}

TEST(Doctor, PortDownIsAnErrorWithTheNetdevToBringUp) {
  FakeHost host;
  host.add_rxe("rxe0", "eth0");
  host.write("sys/class/infiniband/rxe0/ports/1/state", "1: DOWN");
  host.write("sys/class/infiniband/rxe0/ports/1/phys_state", "3: Disabled");
  host.write("sys/class/net/eth0/operstate", "down");
  const DoctorReport r = run_doctor(options(host));
  EXPECT_TRUE(r.has_error());
  EXPECT_EQ(render_line(*find(r, "port.state")),
            "[error] rxe0 port 1: DOWN, Disabled (not ACTIVE); fix: ip link set eth0 up");
}

TEST(Doctor, NoRoceV2GidIsAnError) {
  FakeHost host;
  host.add_rxe("rxe0", "eth0");
  host.write("sys/class/infiniband/rxe0/ports/1/gid_attrs/types/1", "IB/RoCE v1");
  const DoctorReport r = run_doctor(options(host));
  EXPECT_EQ(severity_of(r, "gid.rocev2"), Severity::kError);
  EXPECT_NE(find(r, "gid.rocev2")->remedy.find("ip addr add"), std::string::npos);
}

TEST(Doctor, RoceV2OnlyOnLinkLocalIsAWarning) {
  FakeHost host;
  host.add_rxe("rxe0", "eth0");
  host.set_gid("rxe0", 1, "fe80:0000:0000:0000:0000:00ff:fe00:0002", "RoCE v2", "eth0");
  const DoctorReport r = run_doctor(options(host));
  EXPECT_EQ(severity_of(r, "gid.rocev2"), Severity::kWarning);
  EXPECT_FALSE(r.has_error()) << render_text(r);
}

TEST(Doctor, ActiveMtuLargerThanTheNetdevAllowsIsAnError) {
  FakeHost host;
  host.add_rxe("rxe0", "eth0");
  const DoctorReport r = run_doctor(options(host, 4096));
  EXPECT_EQ(severity_of(r, "mtu.match"), Severity::kError);
  EXPECT_EQ(find(r, "mtu.match")->remedy,
            "ip link set eth0 mtu 4160 (and the switch port), or use path_mtu 1024");
}

TEST(Doctor, JumboNetdevForActiveMtu4096IsOk) {
  FakeHost host;
  host.add_rxe("rxe0", "eth0");
  host.write("sys/class/net/eth0/mtu", "9000");
  EXPECT_EQ(severity_of(run_doctor(options(host, 4096)), "mtu.match"), Severity::kOk);
}

TEST(Doctor, UnknownActiveMtuIsAWarningNamingIbvDevinfo) {
  FakeHost host;
  host.add_rxe("rxe0", "eth0");
  const DoctorReport r = run_doctor(options(host, std::nullopt));
  EXPECT_EQ(severity_of(r, "mtu.match"), Severity::kWarning);
  EXPECT_EQ(find(r, "mtu.match")->remedy, "ibv_devinfo -d rxe0 -i 1 | grep active_mtu");
}

TEST(Doctor, NoDeviceIsAnErrorWithTheModprobeRemedy) {
  FakeHost host;
  host.add_netdev("eth0", 1500);
  const DoctorReport r = run_doctor(options(host));
  ASSERT_TRUE(r.has_error());
  const Finding* f = find(r, "rdma.device.present");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->remedy,
            "load a driver, e.g. 'modprobe rdma_rxe && rdma link add rxe0 type rxe netdev eth0'");
  EXPECT_EQ(render_text(r).substr(0, 24), "[error] no RDMA device (");
}

TEST(Doctor, NoDeviceRemedyFitsWhatTheKernelCanLoad) {
  FakeHost no_modules;
  no_modules.remove("lib/modules");
  const DoctorReport a = run_doctor(options(no_modules));
  EXPECT_EQ(a.findings.front().message,
            "no RDMA device, and kernel 6.1.0-fake has no /lib/modules directory: modprobe can "
            "load no RDMA driver here");
  EXPECT_TRUE(a.findings.front().remedy.starts_with("boot a kernel with CONFIG_RDMA_RXE"));
  FakeHost loaded;
  loaded.write("sys/module/rdma_rxe/refcnt", "0");
  EXPECT_EQ(run_doctor(options(loaded)).findings.front().remedy,
            "rdma_rxe is loaded: add a device, 'rdma link add rxe0 type rxe netdev eth0'");
}

TEST(Doctor, RoceEcnOffWhereTunableIsAWarning) {
  FakeHost host;
  host.add_rxe("rxe0", "eth0");
  for (int prio = 0; prio < 8; ++prio) {
    host.write("sys/class/net/eth0/ecn/roce_np/enable/" + std::to_string(prio), "1");
    host.write("sys/class/net/eth0/ecn/roce_rp/enable/" + std::to_string(prio),
               prio == 3 ? "0" : "1");
  }
  const DoctorReport r = run_doctor(options(host));
  EXPECT_EQ(severity_of(r, "ecn"), Severity::kWarning);
  EXPECT_EQ(find(r, "ecn")->remedy,
            "echo 1 > /sys/class/net/eth0/ecn/roce_rp/enable/3 (for each priority off)");
}

TEST(Doctor, NoDcbSupportMakesPfcAndDscpWarningsNotErrors) {
  FakeHost host;
  host.add_rxe("rxe0", "eth0");
  InspectOptions o = options(host);
  o.tools = [](const std::vector<std::string>& argv) {
    if (argv[0] == "ethtool") return ToolProbe{"", ToolStatus::kAbsent, "ethtool: not installed"};
    return ToolProbe{"", ToolStatus::kFailed, "exit 1: Attribute read: Operation not supported"};
  };
  const DoctorReport r = run_doctor(o);
  EXPECT_EQ(severity_of(r, "pfc"), Severity::kWarning);
  EXPECT_EQ(severity_of(r, "dscp.trust"), Severity::kWarning);
  EXPECT_EQ(severity_of(r, "offload"), Severity::kWarning);
  EXPECT_EQ(find(r, "offload")->message,
            "offloads not checked: ethtool is not installed (wanted 'ethtool -k eth0')");
  EXPECT_EQ(find(r, "offload")->remedy, "apt-get install ethtool");
  EXPECT_FALSE(r.has_error());
}

TEST(Doctor, AnotherRootRunsNoToolsAndNoVerbs) {
  FakeHost host;
  host.add_rxe("rxe0", "eth0");
  const InspectOptions o = inspect_options_for(host.root());
  EXPECT_FALSE(o.tools);
  EXPECT_FALSE(o.active_mtu);
  const DoctorReport r = run_doctor(o);
  EXPECT_EQ(severity_of(r, "pfc"), Severity::kOk);  // "not checked", since not the live host
  EXPECT_EQ(r.facts["netdevs"][0]["tools"][0]["status"], "not_run");
}

TEST(Doctor, HardwareDeviceFindsItsNetdevUnderDeviceNet) {
  FakeHost host;
  host.add_rxe("mlx5_0", "ens1f0");
  host.remove("sys/class/infiniband/mlx5_0/parent");
  for (int i = 0; i < 2; ++i) {
    host.remove("sys/class/infiniband/mlx5_0/ports/1/gid_attrs/ndevs/" + std::to_string(i));
  }
  host.write("sys/class/infiniband/mlx5_0/device/net/ens1f0/ifindex", "3");
  EXPECT_EQ(run_doctor(options(host)).facts["devices"][0]["netdev"], "ens1f0");
}

}  // namespace
}  // namespace mr::doctor
