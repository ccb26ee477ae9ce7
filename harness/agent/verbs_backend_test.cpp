// The verbs backend without a device: opening fails with a sentence for the operator, never a
// crash. (Its ops are exercised over Linux rxe in the DUT VM's integration test.)
#include "harness/agent/verbs_backend.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <system_error>

namespace mr::agent {
namespace {

bool host_has_rdma_device() {
  std::error_code ec;
  return !std::filesystem::is_empty("/sys/class/infiniband_verbs", ec) && !ec;
}

TEST(VerbsBackend, NoDeviceIsAClearError) {
  if (host_has_rdma_device()) GTEST_SKIP() << "this host has an RDMA device";
  auto backend = VerbsBackend::open({});
  ASSERT_FALSE(backend);
  EXPECT_TRUE(backend.error().starts_with("no RDMA device found: ")) << backend.error();
  EXPECT_NE(backend.error().find("load rdma_rxe and run 'rdma link add"), std::string::npos)
      << backend.error();
}

TEST(VerbsBackend, UnknownDeviceNameIsAClearError) {
  auto backend = VerbsBackend::open(
      {.device = "no-such-rdma-device", .port = 1, .gid_index = {}, .sys_root = "/sys"});
  ASSERT_FALSE(backend);
  // "no RDMA device found: ..." on a host without devices, "no RDMA device named ..." else.
  EXPECT_TRUE(backend.error().starts_with("no RDMA device")) << backend.error();
}

SysfsGid gid(uint32_t index, const char* address, const char* type) {
  return {.index = index, .gid = *wire::Ipv6Address::parse(address), .type = type, .ndev = "eth0"};
}

// rc.inv is never claimed: the region the agent registers (ibv_reg_mr) cannot be invalidated
// remotely, whatever IBV_DEVICE_MEM_MGT_EXTENSIONS says.
TEST(VerbsBackend, PicsFollowTheDeviceAndItsGids) {
  ibv_device_attr rxe{};
  rxe.atomic_cap = IBV_ATOMIC_HCA;
  rxe.device_cap_flags = IBV_DEVICE_MEM_MGT_EXTENSIONS;
  rxe.max_srq = 1 << 10;
  const std::vector<SysfsGid> v4_only = {gid(0, "fe80::1", "RoCEv2"),
                                         gid(1, "::ffff:10.0.0.2", "RoCEv2")};
  EXPECT_EQ(verbs_pics_features(rxe, v4_only),
            (std::vector<std::string>{"roce.v2", "ipv4", "rc.send", "rc.write", "rc.read",
                                      "rc.atomic", "rc.imm", "rc.srq"}));
  const ibv_device_attr bare{};
  const std::vector<SysfsGid> v6_v1 = {gid(0, "2001:db8::2", "RoCEv2"),
                                       gid(1, "::ffff:10.0.0.2", "RoCEv1")};
  EXPECT_EQ(
      verbs_pics_features(bare, v6_v1),
      (std::vector<std::string>{"roce.v2", "ipv6", "rc.send", "rc.write", "rc.read", "rc.imm"}));
}

}  // namespace
}  // namespace mr::agent
