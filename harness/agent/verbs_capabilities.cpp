// VerbsBackend::capabilities: what the verbs device is (ibv_query_device, ibv_query_port,
// the GID table and its netdev) and the PICS features it can claim.
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>

#include "harness/agent/verbs_backend.h"
#include "harness/agent/verbs_mapping.h"

namespace mr::agent {
namespace {

// The IPv4 and IPv6 addresses of a netdev, as getifaddrs lists them.
std::vector<std::string> netdev_ips(const std::string& ndev) {
  std::vector<std::string> out;
  ifaddrs* list = nullptr;
  if (ndev.empty() || getifaddrs(&list) != 0) return out;
  const std::unique_ptr<ifaddrs, decltype(&freeifaddrs)> owner(list, freeifaddrs);
  for (const ifaddrs* a = list; a != nullptr; a = a->ifa_next) {
    if (a->ifa_addr == nullptr || ndev != a->ifa_name) continue;
    if (a->ifa_addr->sa_family == AF_INET) {
      wire::Ipv4Address ip;
      const auto* sin = reinterpret_cast<const sockaddr_in*>(a->ifa_addr);
      std::memcpy(ip.bytes.data(), &sin->sin_addr, 4);
      out.push_back(ip.to_string());
    } else if (a->ifa_addr->sa_family == AF_INET6) {
      wire::Ipv6Address ip;
      const auto* sin6 = reinterpret_cast<const sockaddr_in6*>(a->ifa_addr);
      std::memcpy(ip.bytes.data(), &sin6->sin6_addr, 16);
      out.push_back(ip.to_string());
    }
  }
  return out;
}

std::string vendor_text(const ibv_device_attr& attr) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "vendor_id 0x%x, vendor_part_id 0x%x", attr.vendor_id,
                attr.vendor_part_id);
  return buf;
}

}  // namespace

std::vector<std::string> verbs_pics_features(const ibv_device_attr& attr,
                                             const std::vector<SysfsGid>& gids) {
  bool v2 = false;
  bool v4 = false;
  bool v6 = false;
  for (const auto& g : gids) {
    if (g.type != "RoCEv2") continue;
    v2 = true;
    const bool link_local = g.gid.bytes[0] == 0xfe && (g.gid.bytes[1] & 0xc0) == 0x80;
    (is_ipv4_mapped(g.gid) ? v4 : v6) |= !link_local;
  }
  std::vector<std::string> out;
  if (v2) out.emplace_back("roce.v2");
  if (v4) out.emplace_back("ipv4");
  if (v6) out.emplace_back("ipv6");  // a global IPv6 GID: link-local ones exist everywhere
  // RC SEND, WRITE, READ and immediate data are what every verbs RC device does.
  for (const char* key : {"rc.send", "rc.write", "rc.read"}) out.emplace_back(key);
  if (attr.atomic_cap != IBV_ATOMIC_NONE) out.emplace_back("rc.atomic");
  out.emplace_back("rc.imm");
  // No rc.inv: the tests invalidate the R_Key of the region create_qp registers, and IBA allows
  // remote invalidation only of fast-registered regions and type-2 memory windows, never of a
  // region from ibv_reg_mr (rxe_invalidate_mr refuses it: Class J, the QP moves to Error).
  // IBV_DEVICE_MEM_MGT_EXTENSIONS says the device invalidates such keys, not this one.
  if (attr.max_srq > 0) out.emplace_back("rc.srq");
  return out;
}

Result<Capabilities> VerbsBackend::capabilities() {
  std::lock_guard lock(mutex_);
  ibv_port_attr port{};
  if (int rc = ibv_query_port(context_.get(), port_, &port); rc != 0) {
    return Unexpected(verbs_error("ibv_query_port", rc));
  }
  const auto gids = sysfs_.gids();
  Capabilities c;
  c.device_name = device_name_;
  c.device_kind = "verbs";
  c.vendor = vendor_text(device_attr_);
  c.version = device_attr_.fw_ver;
  std::string ndev;
  for (const auto& g : gids) {
    c.gids.push_back({g.index, g.gid, g.type.empty() ? "unknown" : g.type});
    if (g.index == gid_index_) ndev = g.ndev;
  }
  if (auto mac = sysfs_.netdev_mac(ndev)) c.mac = *mac;
  c.ips = netdev_ips(ndev);
  for (uint32_t mtu = 256; mtu <= mtu_bytes(port.active_mtu); mtu *= 2) c.mtus.push_back(mtu);
  const ibv_device_attr& a = device_attr_;
  c.limits = {
      {"max_qp", static_cast<uint64_t>(a.max_qp)},
      {"max_qp_wr", static_cast<uint64_t>(a.max_qp_wr)},
      {"max_sge", std::min<uint64_t>(kMaxSge, static_cast<uint64_t>(a.max_sge))},
      {"max_cq", static_cast<uint64_t>(a.max_cq)},
      {"max_cqe", static_cast<uint64_t>(a.max_cqe)},
      {"max_srq_wr", static_cast<uint64_t>(a.max_srq_wr)},
      {"max_mr_size", a.max_mr_size},
      {"max_qp_rd_atom", static_cast<uint64_t>(a.max_qp_rd_atom)},
      {"max_qp_init_rd_atom", static_cast<uint64_t>(a.max_qp_init_rd_atom)},
      {"max_rd_atomic", static_cast<uint64_t>(std::min(a.max_qp_rd_atom, a.max_qp_init_rd_atom))},
      {"max_msg_size", port.max_msg_sz},
      {"max_mem_transfer", kMaxMemTransfer},
      {"max_poll_timeout_ms", kMaxPollTimeoutMs},
      {"max_line_bytes", kMaxLineBytes},
      {"port", port_},
      {"gid_index", gid_index_}};
  c.pics = verbs_pics_features(device_attr_, gids);
  return c;
}

}  // namespace mr::agent
