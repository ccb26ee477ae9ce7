// File: network_namespace.h
//
// A network namespace the test creates and deletes itself (RAII), so that test traffic
// never meets the host's interfaces. Names are "mrt-<pid>-<n>": unique per process, and a
// namespace whose process died (a crashed test) is recognised and removed by the next
// create() in any process.
//
// Network safety rules, enforced here and in VethPair: nothing is created or configured
// in the root namespace, IPv4 addresses come from 198.18.0.0/15 only (RFC 2544's range for
// benchmarking network devices), and every command is bounded in time.
//
// A tap (for a QEMU guest) can be added to a namespace instead of a veth.
//
// Code runs inside the namespace on a thread of its own (setns() changes only the calling
// thread). Sockets keep the namespace they were opened in, so a pcap handle opened there
// keeps working from any thread afterwards:
//   auto ns = NetworkNamespace::create();
//   std::optional<Expected<PcapLink, std::string>> link;
//   ns->run_inside([&] { link = PcapLink::open("mrt0"); });
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "reference/error/expected.h"

namespace mr::io {

class NetworkNamespace {
 public:
  static Expected<NetworkNamespace, std::string> create();

  NetworkNamespace(NetworkNamespace&& other) noexcept : name_(std::move(other.name_)) {
    other.name_.clear();
  }
  NetworkNamespace& operator=(NetworkNamespace&& other) noexcept;
  NetworkNamespace(const NetworkNamespace&) = delete;
  NetworkNamespace& operator=(const NetworkNamespace&) = delete;
  ~NetworkNamespace();  // deletes the namespace and every interface in it

  const std::string& name() const { return name_; }

  // `ip -n <name> args...`; returns ip's output.
  Expected<std::string, std::string> ip(const std::vector<std::string>& args) const;
  // Any program inside the namespace: `ip netns exec <name> argv...`.
  Expected<std::string, std::string> exec(const std::vector<std::string>& argv,
                                          uint64_t timeout_ms = 10'000) const;
  // A tap device inside this namespace (for a QEMU guest such as the rxe DUT), up, with an
  // optional IPv4 address that must lie in 198.18.0.0/15.
  Expected<void, std::string> add_tap(const std::string& interface,
                                      const std::string& ipv4_cidr = "") const;
  // Runs fn on a new thread that has joined this namespace; returns when fn has.
  Expected<void, std::string> run_inside(const std::function<void()>& fn) const;
  // Writes a /proc/sys/net file as this namespace sees it ("/proc/sys/net/ipv6/conf/mrt0/
  // disable_ipv6"), without the sysctl program.
  Expected<void, std::string> write_sysctl(const std::string& path, const std::string& value) const;

  static constexpr const char* kPrefix = "mrt-";

 private:
  explicit NetworkNamespace(std::string name) : name_(std::move(name)) {}
  std::string name_;
};

// True when every network namespace this process created has been deleted.
bool no_namespaces_left_by_this_process();

}  // namespace mr::io
