// File: active_mtu.h
//
// A port's active MTU, which sysfs does not show: ibv_query_port does (ibv_devinfo's
// active_mtu). The inspector takes it as a function so that tests can say what a fake
// device would answer.
//
//   ActiveMtuQuery q = verbs_active_mtu_query();
//   std::optional<uint32_t> mtu = q("rxe0", 1);  // 1024, or nullopt when no device opens
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace mr::doctor {

// Bytes (256 .. 4096), or nullopt when the device cannot be opened or queried.
using ActiveMtuQuery =
    std::function<std::optional<uint32_t>(const std::string& device, uint32_t port)>;

// Through libibverbs: opens the named device, queries the port, closes it again.
ActiveMtuQuery verbs_active_mtu_query();

}  // namespace mr::doctor
