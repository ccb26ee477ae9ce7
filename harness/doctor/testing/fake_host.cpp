#include "harness/doctor/testing/fake_host.h"

#include <stdlib.h>

#include <fstream>
#include <stdexcept>
#include <system_error>
#include <vector>

namespace mr::doctor::testing {

FakeHost::FakeHost() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "fake-host-XXXXXX").string();
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (mkdtemp(buf.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  root_ = buf.data();
  write("proc/sys/kernel/hostname", "fake-dut");
  write("proc/sys/kernel/osrelease", "6.1.0-fake");
  write("proc/sys/net/ipv4/tcp_ecn", "2");
  add_netdev("lo", 65536);
  write("lib/modules/6.1.0-fake/kernel/drivers/infiniband/sw/rxe/rdma_rxe.ko.xz", "");
}

FakeHost::~FakeHost() {
  std::error_code ec;
  std::filesystem::remove_all(root_, ec);
}

void FakeHost::write(const std::string& relative, const std::string& text) const {
  const auto p = root_ / relative;
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p) << text << "\n";
}

void FakeHost::remove(const std::string& relative) const {
  std::error_code ec;
  std::filesystem::remove_all(root_ / relative, ec);
}

void FakeHost::add_netdev(const std::string& name, int mtu) const {
  const std::string dir = "sys/class/net/" + name + "/";
  write(dir + "mtu", std::to_string(mtu));
  write(dir + "address", "02:00:00:00:00:02");
  write(dir + "operstate", name == "lo" ? "unknown" : "up");
  for (const char* key : {"rp_filter", "arp_ignore", "arp_announce"}) {
    write("proc/sys/net/ipv4/conf/" + name + "/" + key, "0");
  }
}

void FakeHost::set_gid(const std::string& device, int index, const std::string& gid,
                       const std::string& type, const std::string& netdev) const {
  const std::string port = "sys/class/infiniband/" + device + "/ports/1/";
  const std::string i = std::to_string(index);
  write(port + "gids/" + i, gid);
  write(port + "gid_attrs/types/" + i, type);
  write(port + "gid_attrs/ndevs/" + i, netdev);
}

void FakeHost::add_rxe(const std::string& device, const std::string& netdev) const {
  add_netdev(netdev, 1500);
  const std::string dev = "sys/class/infiniband/" + device + "/";
  write(dev + "node_type", "1: CA");
  write(dev + "fw_ver", "0.0.0");
  write(dev + "parent", netdev);
  write(dev + "ports/1/state", "4: ACTIVE");
  write(dev + "ports/1/phys_state", "5: LinkUp");
  write(dev + "ports/1/link_layer", "Ethernet");
  const std::string ll = "fe80:0000:0000:0000:0000:00ff:fe00:0002";
  const std::string v4 = "0000:0000:0000:0000:0000:ffff:c612:0002";  // 198.18.0.2
  set_gid(device, 0, ll, "IB/RoCE v1", netdev);
  set_gid(device, 1, v4, "RoCE v2", netdev);
  // Unused entries read as zero; their types and ndevs fail to read (EINVAL), like absent.
  for (int i = 2; i < 8; ++i) {
    write(dev + "ports/1/gids/" + std::to_string(i), "0000:0000:0000:0000:0000:0000:0000:0000");
  }
}

}  // namespace mr::doctor::testing
