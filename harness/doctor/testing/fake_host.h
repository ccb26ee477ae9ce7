// File: fake_host.h
//
// A fake sysfs/procfs tree in a fresh temporary directory, removed on destruction, for
// tests of the doctor: a healthy Soft-RoCE device over eth0 to start from, and setters to
// break it one way at a time.
//
//   FakeHost host;
//   host.add_rxe("rxe0", "eth0");  // ACTIVE, RoCE v2 IPv4 GID at index 1
//   host.write("sys/class/infiniband/rxe0/ports/1/state", "1: DOWN");
//   run_doctor({.root = host.root()});
#pragma once

#include <filesystem>
#include <string>

namespace mr::doctor::testing {

class FakeHost {
 public:
  // Kernel 6.1.0-fake, which has an rdma_rxe module, tcp_ecn 2, and lo.
  FakeHost();
  ~FakeHost();
  FakeHost(const FakeHost&) = delete;
  FakeHost& operator=(const FakeHost&) = delete;

  std::string root() const { return root_.string(); }

  // Writes `text` and a newline to root/relative, creating the directories.
  void write(const std::string& relative, const std::string& text) const;
  void remove(const std::string& relative) const;

  // A netdev: mtu, address, operstate up, rp_filter and friends.
  void add_netdev(const std::string& name, int mtu) const;
  // rxe over `netdev` (added too, MTU 1500): port 1 ACTIVE/LinkUp on Ethernet; GIDs:
  // 0 fe80::ff:fe00:2 IB/RoCE v1, 1 ::ffff:198.18.0.2 RoCE v2; 2..7 unused (zero).
  void add_rxe(const std::string& device, const std::string& netdev) const;
  // A GID entry as sysfs writes it (eight full groups).
  void set_gid(const std::string& device, int index, const std::string& gid,
               const std::string& type, const std::string& netdev) const;

 private:
  std::filesystem::path root_;
};

}  // namespace mr::doctor::testing
