#include "harness/agent/sysfs_device.h"

#include <gtest/gtest.h>

#include <fstream>
#include <random>

namespace mr::agent {
namespace {

namespace fs = std::filesystem;

// A temporary tree laid out like /sys for one rxe device on eth0.
class SysfsTree : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ =
        fs::temp_directory_path() / ("sysfs_device_test_" + std::to_string(std::random_device{}()));
    port_ = root_ / "class/infiniband/rxe0/ports/1";
    const std::string zero = "0000:0000:0000:0000:0000:0000:0000:0000";
    write(port_ / "gids/0", "fe80:0000:0000:0000:5054:00ff:fe12:3456");
    write(port_ / "gids/1", "0000:0000:0000:0000:0000:ffff:0a00:0002");
    write(port_ / "gids/2", zero);
    write(port_ / "gids/10", "2001:0db8:0000:0000:0000:0000:0000:0002");
    write(port_ / "gid_attrs/types/0", "RoCE v2");
    write(port_ / "gid_attrs/types/1", "RoCE v2");
    write(port_ / "gid_attrs/types/10", "IB/RoCE v1");
    // types/2 is absent: sysfs answers EINVAL for an empty entry
    write(port_ / "gid_attrs/ndevs/0", "eth0");
    write(port_ / "gid_attrs/ndevs/1", "eth0");
    write(port_ / "hw_counters/sent_pkts", "12");
    write(port_ / "hw_counters/rcvd_pkts", "34");
    write(port_ / "hw_counters/lifespan", "10");
    write(port_ / "counters/bad_pkey_cntr", "3");
    write(port_ / "counters/port_rcv_data", "not a number");
    write(root_ / "class/net/eth0/address", "52:54:00:12:34:56");
  }
  void TearDown() override { fs::remove_all(root_); }

  static void write(const fs::path& path, const std::string& text) {
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text << "\n";
  }

  fs::path root_;
  fs::path port_;
};

TEST_F(SysfsTree, GidsInIndexOrderWithoutEmptyEntries) {
  const SysfsDevice sys(root_, "rxe0", 1);
  const auto gids = sys.gids();
  ASSERT_EQ(gids.size(), 3U);
  EXPECT_EQ(gids[0].index, 0U);
  EXPECT_EQ(gids[0].gid.to_string(), "fe80::5054:ff:fe12:3456");
  EXPECT_EQ(gids[0].type, "RoCEv2");
  EXPECT_EQ(gids[0].ndev, "eth0");
  EXPECT_EQ(gids[1].index, 1U);
  EXPECT_EQ(gids[1].gid.to_string(), "::ffff:10.0.0.2");
  EXPECT_EQ(gids[2].index, 10U);  // numeric order, not "10" < "2"
  EXPECT_EQ(gids[2].type, "RoCEv1");
  EXPECT_EQ(gids[2].ndev, "");
  EXPECT_EQ(default_gid_index(gids), 1U);
}

TEST_F(SysfsTree, CountersNamedAsTheirFiles) {
  const SysfsDevice sys(root_, "rxe0", 1);
  const auto counters = sys.counters();
  ASSERT_EQ(counters.size(), 3U);  // lifespan and the unreadable number are left out
  EXPECT_EQ(counters[0].name, "rcvd_pkts");
  EXPECT_EQ(counters[0].value, 34U);
  EXPECT_EQ(counters[1].name, "sent_pkts");
  EXPECT_EQ(counters[1].value, 12U);
  EXPECT_EQ(counters[2].name, "bad_pkey_cntr");
  EXPECT_EQ(counters[2].value, 3U);
}

TEST_F(SysfsTree, NetdevMac) {
  const SysfsDevice sys(root_, "rxe0", 1);
  EXPECT_EQ(sys.netdev_mac("eth0"), wire::MacAddress::parse("52:54:00:12:34:56"));
  EXPECT_FALSE(sys.netdev_mac("eth9"));
  EXPECT_FALSE(sys.netdev_mac(""));
}

TEST_F(SysfsTree, MissingDeviceOrPortReadsAsEmpty) {
  EXPECT_TRUE(SysfsDevice(root_, "rxe9", 1).gids().empty());
  EXPECT_TRUE(SysfsDevice(root_, "rxe0", 2).counters().empty());
}

}  // namespace
}  // namespace mr::agent
