#include "harness/agent/object_registry.h"

#include <algorithm>
#include <string>

namespace mr::agent {

std::string_view to_string(ObjectKind kind) {
  switch (kind) {
    case ObjectKind::kQp:
      return "qp";
    case ObjectKind::kCq:
      return "cq";
    case ObjectKind::kSrq:
      return "srq";
    case ObjectKind::kMr:
      return "mr";
    case ObjectKind::kPd:
      return "pd";
  }
  return "?";
}

bool ObjectRegistry::exists(ObjectKind kind, uint32_t handle) const {
  switch (kind) {
    case ObjectKind::kQp:
      return qps_.contains(handle);
    case ObjectKind::kCq:
      return cqs_.contains(handle);
    case ObjectKind::kSrq:
      return srqs_.contains(handle);
    case ObjectKind::kMr:
      return mrs_.contains(handle);
    case ObjectKind::kPd:
      return pds_.contains(handle);
  }
  return false;
}

Result<void> ObjectRegistry::check(ObjectKind kind, uint32_t handle, const char* field) const {
  if (exists(kind, handle)) return {};
  return control_error(ErrorCode::kEnoent,
                       "no " + std::string(to_string(kind)) + " " + std::to_string(handle), field);
}

Result<void> ObjectRegistry::check_destroy(ObjectKind kind, uint32_t handle) const {
  if (auto ok = check(kind, handle, "handle"); !ok) return ok;
  const auto busy = [&](const char* what) {
    return control_error(
        ErrorCode::kEbusy,
        std::string(to_string(kind)) + " " + std::to_string(handle) + " is in use by " + what,
        "handle");
  };
  const auto any_qp = [&](auto uses) {
    return std::any_of(qps_.begin(), qps_.end(), [&](const auto& kv) { return uses(kv.second); });
  };
  switch (kind) {
    case ObjectKind::kPd:
      if (any_qp([&](const QpUse& u) { return u.pd == handle; })) return busy("a qp");
      if (std::any_of(mrs_.begin(), mrs_.end(),
                      [&](const auto& kv) { return kv.second == handle; })) {
        return busy("an mr");
      }
      break;
    case ObjectKind::kCq:
      if (any_qp([&](const QpUse& u) { return u.send_cq == handle || u.recv_cq == handle; })) {
        return busy("a qp");
      }
      break;
    case ObjectKind::kSrq:
      if (any_qp([&](const QpUse& u) { return u.srq == handle; })) return busy("a qp");
      break;
    case ObjectKind::kQp:
    case ObjectKind::kMr:
      break;
  }
  return {};
}

void ObjectRegistry::remove(ObjectKind kind, uint32_t handle) {
  switch (kind) {
    case ObjectKind::kQp:
      qps_.erase(handle);
      break;
    case ObjectKind::kCq:
      cqs_.erase(handle);
      break;
    case ObjectKind::kSrq:
      srqs_.erase(handle);
      break;
    case ObjectKind::kMr:
      mrs_.erase(handle);
      break;
    case ObjectKind::kPd:
      pds_.erase(handle);
      break;
  }
}

}  // namespace mr::agent
