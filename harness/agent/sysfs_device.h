// File: sysfs_device.h
//
// What the kernel tells about an RDMA port through sysfs and verbs does not: the GID table
// with each GID's type (RoCE v1 or v2) and netdev, the port's counters (rxe's hw_counters
// and the IB port counters, bad_pkey_cntr among them), and the MAC of the netdev behind a
// GID. The root is a parameter ("/sys" on a real system), so tests lay out a directory tree
// shaped like /sys/class/infiniband/<dev>/ports/<port>/... and read it without a device.
//
//   SysfsDevice sys("/sys", "rxe0", 1);
//   for (const SysfsGid& g : sys.gids()) ...;            // non-zero GIDs, in index order
//   std::optional<uint32_t> index = default_gid_index(sys.gids());  // gid_table.h
//   std::vector<Counter> counters = sys.counters();      // named as the files are
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/agent/dut_types.h"
#include "harness/agent/gid_table.h"
#include "reference/wire/address.h"

namespace mr::agent {

class SysfsDevice {
 public:
  SysfsDevice(std::filesystem::path root, std::string device, uint32_t port);

  // The non-zero GIDs of the port, in index order, with type and netdev.
  std::vector<SysfsGid> gids() const;
  // hw_counters/* then counters/* of the port, each as its file is named; files that do not
  // read as a number (rxe cannot answer the MAD-backed IB counters) are left out.
  std::vector<Counter> counters() const;
  // /sys/class/net/<ndev>/address.
  std::optional<wire::MacAddress> netdev_mac(const std::string& ndev) const;

  std::filesystem::path port_dir() const;

 private:
  std::filesystem::path root_;
  std::string device_;
  uint32_t port_;
};

// The first line of a file without its newline; nullopt when it cannot be read (sysfs
// answers some reads with EINVAL, such as the type of an empty GID entry).
std::optional<std::string> read_first_line(const std::filesystem::path& path);

}  // namespace mr::agent
