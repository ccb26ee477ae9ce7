// File: verbs_backend.h
//
// The verbs backend: any RDMA NIC (Linux rxe included) behind the DutBackend interface,
// each op mapped one to one onto libibverbs (verbs_mapping.h holds the pure mappings):
//   create_pd -> ibv_alloc_pd, reg_mr -> ibv_reg_mr on memory the backend maps,
//   create_cq / create_srq / create_qp (RC) -> ibv_create_*, modify_qp -> ibv_modify_qp,
//   query_qp -> ibv_query_qp, post_* -> ibv_post_*, poll_cq -> ibv_poll_cq in a loop with
//   short sleeps until timeout_ms, req_notify_cq -> ibv_req_notify_cq, read_mem / write_mem
//   -> copies in the mapped memory, counters -> sysfs hw_counters and counters of the port.
//
// Where it differs from the reference backend:
//   - reg_mr's `va` is honoured by mapping the region's memory at that address
//     (MAP_FIXED_NOREPLACE); when the address is taken or invalid the reply is EINVAL.
//   - the destination MAC is the kernel's choice, from its neighbour table (ARP/ND), when
//     modify_qp takes the QP to RTR: av.dmac is ignored, as are av.udp_sport (the kernel
//     derives it) and a VLAN (av.vlan_id is refused: the VLAN is the source GID's netdev).
//   - set_mutants answers ENOTSUP; completions never carry `solicited` (ibv_wc has no bit).
//   - MetaRoCE Part II (modify_qp's ev_set, set_port, set_ev_state) answers ENOTSUP.
//
// Handles: a PD, CQ and SRQ by a small counter, a QP by its QPN, an MR by its L_Key. One
// mutex serializes every op (the agent's control thread is the only caller; the NIC runs
// the data path itself).
//
//   auto backend = VerbsBackend::open({.device = "rxe0"});
//   if (!backend) { log(backend.error()); return 2; }  // "no RDMA device found: ..."
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "harness/agent/dut_backend.h"
#include "harness/agent/gid_table.h"
#include "harness/agent/object_registry.h"
#include "harness/agent/sysfs_device.h"
#include "harness/agent/verbs_objects.h"

namespace mr::agent {

struct VerbsBackendOptions {
  std::string device;  // empty: the first device libibverbs lists
  uint8_t port = 1;
  std::optional<uint32_t> gid_index;  // default: default_gid_index() of the port
  std::filesystem::path sys_root = "/sys";
};

class VerbsBackend final : public DutBackend {
 public:
  // Opens the device, checks the port is RoCE and picks the GID. The error is a sentence
  // for the operator ("no RDMA device found: ...; load rdma_rxe and run 'rdma link add'").
  static Expected<std::unique_ptr<VerbsBackend>, std::string> open(
      const VerbsBackendOptions& options);

  // Only open() can make the key: a backend always comes from a device that opened.
  class OpenKey {
    friend class VerbsBackend;
    OpenKey() = default;
  };
  VerbsBackend(OpenKey key, IbvContext context, std::string device_name, uint8_t port,
               uint32_t gid_index, const std::filesystem::path& sys_root);
  VerbsBackend(const VerbsBackend&) = delete;
  VerbsBackend& operator=(const VerbsBackend&) = delete;
  ~VerbsBackend() override;

  const std::string& device_name() const { return device_name_; }
  uint8_t port() const { return port_; }
  uint32_t gid_index() const { return gid_index_; }

  // --- DutBackend ---
  Result<Capabilities> capabilities() override;
  Result<uint32_t> create_pd() override;
  Result<MrResult> reg_mr(const RegMrArgs& args) override;
  Result<void> dereg_mr(uint32_t lkey) override;
  Result<uint32_t> create_cq(uint32_t depth) override;
  Result<uint32_t> create_srq(uint32_t max_wr) override;
  Result<uint32_t> create_qp(const CreateQpArgs& args) override;
  Result<void> modify_qp(const ModifyQpArgs& args) override;
  Result<transport::QpAttributes> query_qp(uint32_t qpn) override;
  Result<void> post_send(uint32_t qpn, const transport::SendWr& wr) override;
  Result<void> post_recv(uint32_t qpn, const transport::RecvWr& wr) override;
  Result<void> post_srq_recv(uint32_t srq, const transport::RecvWr& wr) override;
  Result<std::vector<transport::Completion>> poll_cq(const PollCqArgs& args) override;
  Result<void> req_notify_cq(uint32_t cq, bool solicited_only) override;
  Result<uint32_t> get_cq_events(uint32_t cq, uint32_t timeout_ms) override;
  Result<std::vector<uint8_t>> read_mem(const MemArgs& args) override;
  Result<void> write_mem(const MemArgs& args) override;
  Result<std::vector<Counter>> counters() override;
  Result<void> destroy(ObjectKind kind, uint32_t handle) override;
  Result<void> reset() override;
  // Part II: refused (ENOTSUP), as is modify_qp's ev_set (verbs_mapping.h).
  Result<void> set_port(uint8_t plane, bool up) override;
  Result<transport::ext::EvState> set_ev_state(uint32_t qpn, uint16_t ev, bool allowed) override;

 private:
  // A registered region and the memory it covers; mr is declared last so that it is
  // deregistered before the memory is unmapped.
  struct Region {
    MappedMemory memory;
    uint64_t va = 0;
    uint64_t length = 0;
    IbvMr mr;
  };

  // Everything below runs with mutex_ held.
  void clear_locked();
  Result<uint16_t> pkey_index_locked(uint16_t pkey) const;
  Result<void> check_sges_locked(std::span<const transport::Sge> sges) const;
  Result<const Region*> region_locked(uint32_t lkey, uint64_t va, uint64_t length) const;
  Result<ibv_pd*> srq_pd_locked();
  Result<ibv_comp_channel*> channel_locked();
  void drain_channel_locked();

  std::mutex mutex_;
  // Declared in dependency order: members are destroyed in reverse, QPs first.
  IbvContext context_;
  // One completion channel for every CQ (created with the first CQ, non-blocking); the
  // events read from it, acknowledged at once, wait here per CQ for get_cq_events.
  IbvCompChannel channel_;
  std::map<uint32_t, uint32_t> pending_events_;
  std::string device_name_;
  uint8_t port_;
  uint32_t gid_index_;
  SysfsDevice sysfs_;
  ibv_device_attr device_attr_{};
  ObjectRegistry objects_;
  uint32_t next_pd_ = 1;
  uint32_t next_cq_ = 1;
  uint32_t next_srq_ = 1;
  IbvPd srq_pd_;  // for SRQs when the client has no PD (create_srq names none)
  std::map<uint32_t, IbvPd> pds_;
  std::map<uint32_t, Region> mrs_;  // by L_Key
  std::map<uint32_t, IbvCq> cqs_;
  std::map<uint32_t, IbvSrq> srqs_;
  std::map<uint32_t, IbvQp> qps_;  // by QPN
};

// The PICS features (testcases/profiles/) a verbs device can claim through protocol 1 (RC
// only): from its attributes and GID table.
std::vector<std::string> verbs_pics_features(const ibv_device_attr& attr,
                                             const std::vector<SysfsGid>& gids);

}  // namespace mr::agent
