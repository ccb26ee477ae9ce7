// File: verbs_active_mtu.cpp
//
// ActiveMtuQuery over libibverbs. Every handle is released on every path (RAII holders),
// since the agent that runs the doctor also runs the verbs backend on the same device.

#include <infiniband/verbs.h>

#include <cstring>
#include <memory>

#include "harness/doctor/active_mtu.h"

namespace mr::doctor {
namespace {

struct DeviceListDeleter {
  void operator()(ibv_device** list) const { ibv_free_device_list(list); }
};
struct ContextDeleter {
  void operator()(ibv_context* c) const { ibv_close_device(c); }
};

std::optional<uint32_t> mtu_bytes(ibv_mtu mtu) {
  switch (mtu) {
    case IBV_MTU_256:
      return 256;
    case IBV_MTU_512:
      return 512;
    case IBV_MTU_1024:
      return 1024;
    case IBV_MTU_2048:
      return 2048;
    case IBV_MTU_4096:
      return 4096;
  }
  return std::nullopt;
}

std::optional<uint32_t> query(const std::string& device, uint32_t port) {
  if (port == 0 || port > 255) return std::nullopt;
  int count = 0;
  std::unique_ptr<ibv_device*, DeviceListDeleter> list(ibv_get_device_list(&count));
  if (!list) return std::nullopt;
  for (int i = 0; i < count; ++i) {
    ibv_device* d = list.get()[i];
    if (device != ibv_get_device_name(d)) continue;
    std::unique_ptr<ibv_context, ContextDeleter> context(ibv_open_device(d));
    if (!context) return std::nullopt;
    ibv_port_attr attr{};
    if (ibv_query_port(context.get(), static_cast<uint8_t>(port), &attr) != 0) return std::nullopt;
    return mtu_bytes(attr.active_mtu);
  }
  return std::nullopt;
}

}  // namespace

ActiveMtuQuery verbs_active_mtu_query() { return query; }

}  // namespace mr::doctor
