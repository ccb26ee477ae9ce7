// File: gid_table.h
//
// A port's GID table as the verbs backend sees it, and the two choices made from it: the
// default source GID (the first RoCE v2 GID holding an IPv4-mapped address) and the GID a
// modify_qp's av uses as its source (the one whose address is av.sip, else one of dip's
// family). Pure functions, so they are tested without a device.
//
//   std::optional<uint32_t> index = default_gid_index(sysfs.gids());
//   Result<uint32_t> sgid = select_sgid_index(gids, *index, av.dip, av.sip);
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/agent/control_vocabulary.h"
#include "reference/transport/address_vector.h"
#include "reference/wire/address.h"

namespace mr::agent {

struct SysfsGid {
  uint32_t index = 0;
  wire::Ipv6Address gid;
  std::string type;  // "RoCEv2", "RoCEv1" (as Capabilities names them), or "" unknown
  std::string ndev;  // the netdev the GID belongs to, "" when the kernel names none
};

// "RoCE v2" -> "RoCEv2", "IB/RoCE v1" -> "RoCEv1" (the text of gid_attrs/types/<index>);
// nullopt for anything else.
std::optional<std::string> parse_gid_type(std::string_view text);

bool is_ipv4_mapped(const wire::Ipv6Address& gid);

// The first RoCE v2 GID holding an IPv4-mapped address (::ffff:a.b.c.d), which is what a
// RoCEv2-over-IPv4 test bed uses; nullopt when there is none.
std::optional<uint32_t> default_gid_index(const std::vector<SysfsGid>& gids);

// The source GID index for an address vector: the RoCE v2 GID whose address is `sip`; without
// `sip`, `default_index` when it is of dip's family, else the first RoCE v2 GID of dip's
// family (link-local for a link-local dip). EINVAL naming attrs.av.sip or attrs.av.dip when
// there is none.
Result<uint32_t> select_sgid_index(const std::vector<SysfsGid>& gids, uint32_t default_index,
                                   const transport::IpAddress& dip,
                                   const std::optional<transport::IpAddress>& sip);

}  // namespace mr::agent
