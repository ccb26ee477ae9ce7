#include "reference/io/network_namespace.h"

#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "reference/io/command.h"
#include "reference/io/veth_pair.h"

namespace mr::io {
namespace {

constexpr const char* kNetnsDir = "/run/netns";

std::string own_prefix() { return NetworkNamespace::kPrefix + std::to_string(getpid()) + "-"; }

std::vector<std::string> namespace_names() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(kNetnsDir, ec)) {
    names.push_back(entry.path().filename().string());
  }
  return names;
}

// Deletes namespaces named mrt-<pid>-<n> whose process no longer exists: what a test that
// crashed or was killed left behind. Never touches a name without our prefix.
void remove_orphans() {
  for (const auto& name : namespace_names()) {
    if (name.rfind(NetworkNamespace::kPrefix, 0) != 0) continue;
    const std::string rest = name.substr(std::strlen(NetworkNamespace::kPrefix));
    const size_t dash = rest.find('-');
    if (dash == std::string::npos || dash == 0) continue;
    const std::string pid = rest.substr(0, dash);
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    if (std::filesystem::exists("/proc/" + pid)) continue;
    (void)run_command({"ip", "netns", "delete", name});
  }
}

}  // namespace

Expected<NetworkNamespace, std::string> NetworkNamespace::create() {
  static std::atomic<unsigned> counter{0};
  remove_orphans();
  const std::string name = own_prefix() + std::to_string(counter++);
  if (auto made = run_command({"ip", "netns", "add", name}); !made) {
    return Unexpected(made.error());
  }
  NetworkNamespace ns(name);
  // Loopback up: some tools (ping to a local address) expect it.
  if (auto up = ns.ip({"link", "set", "lo", "up"}); !up) return Unexpected(up.error());
  return ns;
}

NetworkNamespace& NetworkNamespace::operator=(NetworkNamespace&& other) noexcept {
  if (this != &other) {
    NetworkNamespace old(std::move(*this));
    name_ = std::move(other.name_);
    other.name_.clear();
  }
  return *this;
}

NetworkNamespace::~NetworkNamespace() {
  if (name_.empty()) return;
  // A destructor cannot report failure; remove_orphans() in a later run is the fallback.
  (void)run_command({"ip", "netns", "delete", name_});
}

Expected<std::string, std::string> NetworkNamespace::ip(
    const std::vector<std::string>& args) const {
  std::vector<std::string> argv = {"ip", "-n", name_};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_command(argv);
}

Expected<std::string, std::string> NetworkNamespace::exec(const std::vector<std::string>& argv,
                                                          uint64_t timeout_ms) const {
  std::vector<std::string> full = {"ip", "netns", "exec", name_};
  full.insert(full.end(), argv.begin(), argv.end());
  return run_command(full, timeout_ms);
}

Expected<void, std::string> NetworkNamespace::add_tap(const std::string& interface,
                                                      const std::string& ipv4_cidr) const {
  if (!ipv4_cidr.empty() && !is_benchmarking_cidr(ipv4_cidr)) {
    return Unexpected(ipv4_cidr + ": test addresses must lie in 198.18.0.0/15");
  }
  if (auto made = ip({"tuntap", "add", "dev", interface, "mode", "tap"}); !made) {
    return Unexpected(made.error());
  }
  if (!ipv4_cidr.empty()) {
    if (auto added = ip({"addr", "add", ipv4_cidr, "dev", interface}); !added) {
      return Unexpected(added.error());
    }
  }
  if (auto up = ip({"link", "set", interface, "up"}); !up) return Unexpected(up.error());
  return {};
}

// /proc/sys/net shows the namespace of the thread that opens it.
Expected<void, std::string> NetworkNamespace::write_sysctl(const std::string& path,
                                                           const std::string& value) const {
  bool written = false;
  auto ran = run_inside([&] {
    std::ofstream out(path);
    out << value;
    out.flush();
    written = static_cast<bool>(out);
  });
  if (!ran) return Unexpected(ran.error());
  if (!written) return Unexpected(name_ + ": cannot write " + path);
  return {};
}

Expected<void, std::string> NetworkNamespace::run_inside(const std::function<void()>& fn) const {
  std::string error;
  std::thread worker([&] {
    const std::string path = std::string(kNetnsDir) + "/" + name_;
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      error = path + ": " + std::strerror(errno);
      return;
    }
    const int rc = setns(fd, CLONE_NEWNET);
    const int saved = errno;
    close(fd);
    if (rc != 0) {
      error = "setns " + name_ + ": " + std::strerror(saved);
      return;
    }
    fn();
  });
  worker.join();
  if (!error.empty()) return Unexpected(error);
  return {};
}

bool no_namespaces_left_by_this_process() {
  const std::string prefix = own_prefix();
  for (const auto& name : namespace_names()) {
    if (name.rfind(prefix, 0) == 0) return false;
  }
  return true;
}

}  // namespace mr::io
