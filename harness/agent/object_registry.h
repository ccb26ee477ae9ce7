// File: object_registry.h
//
// The objects a client created on the reference backend and which of them use which:
// what the transport Device does not track itself (PD existence, CQ and SRQ lifetimes)
// so that every op can answer ENOENT for a handle that does not exist and EBUSY for an
// object still in use, before the Device sees the call.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>

#include "harness/agent/control_vocabulary.h"
#include "harness/agent/dut_types.h"

namespace mr::agent {

class ObjectRegistry {
 public:
  struct QpUse {
    uint32_t pd = 0;
    uint32_t send_cq = 0;
    uint32_t recv_cq = 0;
    std::optional<uint32_t> srq;
  };

  void add_pd(uint32_t pd) { pds_.insert(pd); }
  void add_cq(uint32_t cq) { cqs_.insert(cq); }
  void add_srq(uint32_t srq) { srqs_.insert(srq); }
  void add_mr(uint32_t lkey, uint32_t pd) { mrs_[lkey] = pd; }
  void add_qp(uint32_t qpn, QpUse use) { qps_[qpn] = use; }

  // ENOENT naming `field` unless the object exists.
  Result<void> check(ObjectKind kind, uint32_t handle, const char* field) const;
  // ENOENT or EBUSY when the object cannot be destroyed now.
  Result<void> check_destroy(ObjectKind kind, uint32_t handle) const;
  void remove(ObjectKind kind, uint32_t handle);
  void clear() { *this = ObjectRegistry{}; }

 private:
  bool exists(ObjectKind kind, uint32_t handle) const;

  std::set<uint32_t> pds_;
  std::set<uint32_t> cqs_;
  std::set<uint32_t> srqs_;
  std::map<uint32_t, uint32_t> mrs_;  // lkey -> pd
  std::map<uint32_t, QpUse> qps_;
};

std::string_view to_string(ObjectKind kind);

}  // namespace mr::agent
