#include "harness/agent/sysfs_device.h"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <system_error>
#include <utility>

namespace mr::agent {
namespace {

namespace fs = std::filesystem;

std::optional<uint64_t> parse_counter(std::string_view text) {
  uint64_t value = 0;
  const auto* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || text.empty()) return std::nullopt;
  return value;
}

// The numeric entries of a directory, sorted by name for a stable reply.
std::vector<std::pair<std::string, uint32_t>> numbered_entries(const fs::path& dir) {
  std::vector<std::pair<std::string, uint32_t>> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (auto n = parse_counter(name); n && *n <= UINT32_MAX) {
      out.emplace_back(name, static_cast<uint32_t>(*n));
    }
  }
  std::ranges::sort(out, {}, &std::pair<std::string, uint32_t>::second);
  return out;
}

void append_counters(const fs::path& dir, std::vector<Counter>& out) {
  std::error_code ec;
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    names.push_back(entry.path().filename().string());
  }
  std::ranges::sort(names);
  for (const auto& name : names) {
    if (name == "lifespan") continue;  // hw_counters' refresh interval, not a counter
    auto line = read_first_line(dir / name);
    if (!line) continue;
    if (auto value = parse_counter(*line)) out.push_back({name, *value});
  }
}

}  // namespace

std::optional<std::string> read_first_line(const fs::path& path) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line)) return std::nullopt;
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
  return line;
}

SysfsDevice::SysfsDevice(fs::path root, std::string device, uint32_t port)
    : root_(std::move(root)), device_(std::move(device)), port_(port) {}

fs::path SysfsDevice::port_dir() const {
  return root_ / "class" / "infiniband" / device_ / "ports" / std::to_string(port_);
}

std::vector<SysfsGid> SysfsDevice::gids() const {
  const fs::path port = port_dir();
  std::vector<SysfsGid> out;
  for (const auto& [name, index] : numbered_entries(port / "gids")) {
    auto text = read_first_line(port / "gids" / name);
    if (!text) continue;
    auto gid = wire::Ipv6Address::parse(*text);
    if (!gid || *gid == wire::Ipv6Address{}) continue;  // an empty table entry
    SysfsGid g{.index = index, .gid = *gid, .type = {}, .ndev = {}};
    if (auto type = read_first_line(port / "gid_attrs" / "types" / name)) {
      g.type = parse_gid_type(*type).value_or("");
    }
    g.ndev = read_first_line(port / "gid_attrs" / "ndevs" / name).value_or("");
    out.push_back(std::move(g));
  }
  return out;
}

std::vector<Counter> SysfsDevice::counters() const {
  std::vector<Counter> out;
  append_counters(port_dir() / "hw_counters", out);
  append_counters(port_dir() / "counters", out);
  return out;
}

std::optional<wire::MacAddress> SysfsDevice::netdev_mac(const std::string& ndev) const {
  if (ndev.empty()) return std::nullopt;
  auto text = read_first_line(root_ / "class" / "net" / ndev / "address");
  if (!text) return std::nullopt;
  return wire::MacAddress::parse(*text);
}

}  // namespace mr::agent
