#include "harness/peer/reference_peer.h"

#include "harness/peer/data_pattern.h"
#include "reference/memory/access.h"

namespace mr::peer {
namespace {

using transport::QpAttributes;
using transport::QpState;

constexpr uint32_t kAllAccess =
    memory::kLocalWrite | memory::kRemoteWrite | memory::kRemoteRead | memory::kRemoteAtomic;

transport::DeviceConfig device_config(const PeerIdentity& id) {
  transport::DeviceConfig c;
  c.mac = id.mac;
  c.ip = id.ip;
  if (id.ip6) c.ipv6.push_back(*id.ip6);
  c.seed = id.seed;
  c.mutants = id.mutants;
  c.mxcap = id.mxcap;
  return c;
}

template <typename T>
Expected<T, std::string> verbs(const char* step, Expected<T, transport::VerbsError> r) {
  if (!r) return Unexpected(std::string(step) + ": " + r.error().message);
  if constexpr (std::is_void_v<T>) {
    return {};
  } else {
    return std::move(*r);
  }
}

}  // namespace

transport::AddressVector address_vector(const PeerIdentity& self, const wire::MacAddress& dmac,
                                        const wire::Ipv4Address& dip) {
  transport::AddressVector av;
  av.smac = self.mac;
  av.dmac = dmac;
  av.sip = self.ip;
  av.dip = dip;
  return av;
}

ReferencePeer::ReferencePeer(const PeerIdentity& identity) : device_(device_config(identity)) {}

const PeerQpInfo* ReferencePeer::find(uint32_t qpn) const {
  auto it = qps_.find(qpn);
  return it == qps_.end() ? nullptr : &it->second;
}

Expected<PeerQpInfo, std::string> ReferencePeer::create_qp(const PeerQpSpec& spec) {
  if (spec.type == transport::QpType::kUd)
    return Unexpected(std::string("the tester's QPs are RC or UC"));
  PeerQpInfo info;
  auto pd = device_.memory().alloc_pd();
  if (!pd) return Unexpected("alloc_pd: " + pd.error());
  info.pd = *pd;
  auto mr = device_.memory().reg_mr(info.pd, spec.mr_length, kAllAccess, spec.va);
  if (!mr) return Unexpected("reg_mr: " + mr.error());
  info.lkey = mr->lkey;
  info.rkey = mr->rkey;
  info.va = mr->va;
  info.length = mr->length;
  if (spec.pattern_seed) {
    const auto pattern = pattern_bytes(*spec.pattern_seed, spec.mr_length);
    if (auto ok = device_.memory().write(info.lkey, info.va, pattern); !ok)
      return Unexpected("fill: " + ok.error());
  }
  auto cq = verbs("create_cq", device_.create_cq(spec.cq_depth));
  if (!cq) return Unexpected(cq.error());
  info.cq = *cq;
  transport::QpInitAttributes init;
  init.type = spec.type;
  init.pd = info.pd;
  init.send_cq = init.recv_cq = info.cq;
  init.max_send_wr = spec.max_send_wr;
  init.max_recv_wr = spec.max_recv_wr;
  init.qpn = spec.qpn;
  auto qpn = verbs("create_qp", device_.create_qp(init));
  if (!qpn) return Unexpected(qpn.error());
  info.qpn = *qpn;
  qps_[info.qpn] = info;
  return info;
}

Expected<void, std::string> ReferencePeer::to_init(uint32_t qpn, uint16_t pkey) {
  if (find(qpn) == nullptr)
    return Unexpected("modify_qp INIT: no tester QP " + std::to_string(qpn));
  QpAttributes a;
  a.state = QpState::kInit;
  a.pkey = pkey;
  a.access_flags =
      transport::kQpRemoteWrite | transport::kQpRemoteRead | transport::kQpRemoteAtomic;
  return verbs("modify_qp INIT", device_.modify_qp(qpn, a,
                                                   transport::kAttrState | transport::kAttrPkey |
                                                       transport::kAttrAccessFlags));
}

Expected<void, std::string> ReferencePeer::connect(uint32_t qpn, const PeerPath& path) {
  const transport::QueuePair* q = device_.qp(qpn);
  if (find(qpn) == nullptr || q == nullptr)
    return Unexpected("connect: no tester QP " + std::to_string(qpn));
  if (q->attr.state == QpState::kReset) {
    if (auto ok = to_init(qpn, path.pkey); !ok) return ok;
  }
  QpAttributes a = device_.qp(qpn)->attr;
  a.state = QpState::kRtr;
  a.path_mtu = path.mtu;
  a.av = path.av;
  a.dest_qpn = path.dest_qpn;
  a.rq_psn = path.rq_psn;
  a.max_dest_rd_atomic = path.max_dest_rd_atomic;
  a.min_rnr_timer = path.min_rnr_timer;
  a.peer_mxcap = path.peer_mxcap;
  a.offered_mxcap = path.offered_mxcap;
  a.secure_sa = path.secure_sa;
  if (auto ok =
          verbs("modify_qp RTR",
                device_.modify_qp(qpn, a,
                                  transport::kAttrState | transport::kAttrPathMtu |
                                      transport::kAttrAddress | transport::kAttrDestQpn |
                                      transport::kAttrRqPsn | transport::kAttrMaxDestRdAtomic |
                                      transport::kAttrMinRnrTimer | transport::kAttrPeerMxcap |
                                      transport::kAttrOfferedMxcap |
                                      (path.secure_sa ? transport::kAttrSecureSa : 0U)));
      !ok)
    return ok;
  a.state = QpState::kRts;
  a.sq_psn = path.sq_psn;
  a.timeout = path.timeout;
  a.retry_cnt = path.retry_cnt;
  a.rnr_retry = path.rnr_retry;
  a.max_rd_atomic = path.max_rd_atomic;
  return verbs("modify_qp RTS",
               device_.modify_qp(qpn, a,
                                 transport::kAttrState | transport::kAttrSqPsn |
                                     transport::kAttrTimeout | transport::kAttrRetryCnt |
                                     transport::kAttrRnrRetry | transport::kAttrMaxRdAtomic));
}

Expected<void, std::string> ReferencePeer::install_keys(
    uint32_t qpn, const transport::ext::SecurityAssociations& keys) {
  if (find(qpn) == nullptr) return Unexpected("install_keys: no tester QP " + std::to_string(qpn));
  QpAttributes a;
  a.secure_sa = keys;
  return verbs("modify_qp secure_sa", device_.modify_qp(qpn, a, transport::kAttrSecureSa));
}

Expected<void, std::string> ReferencePeer::destroy_qp(uint32_t qpn) {
  if (find(qpn) == nullptr) return Unexpected("destroy_qp: no tester QP " + std::to_string(qpn));
  if (auto ok = verbs("destroy_qp", device_.destroy_qp(qpn)); !ok) return ok;
  qps_.erase(qpn);
  return {};
}

Expected<void, std::string> ReferencePeer::post_send(uint32_t qpn, const transport::SendWr& wr) {
  return verbs("post_send", device_.post_send(qpn, wr));
}

Expected<void, std::string> ReferencePeer::post_recv(uint32_t qpn, const transport::RecvWr& wr) {
  return verbs("post_recv", device_.post_recv(qpn, wr));
}

std::vector<transport::Completion> ReferencePeer::poll(uint32_t qpn, size_t max) {
  const PeerQpInfo* info = find(qpn);
  if (info == nullptr) return {};
  auto got = device_.poll_cq(info->cq, max);
  return got ? std::move(*got) : std::vector<transport::Completion>{};
}

Expected<std::vector<uint8_t>, std::string> ReferencePeer::read(uint32_t qpn, uint64_t offset,
                                                                uint64_t length) {
  const PeerQpInfo* info = find(qpn);
  if (info == nullptr) return Unexpected("read: no tester QP " + std::to_string(qpn));
  if (offset > info->length || length > info->length - offset)
    return Unexpected("read: " + std::to_string(length) + " bytes at offset " +
                      std::to_string(offset) + " end past the tester's region of " +
                      std::to_string(info->length));
  return device_.memory().read(info->lkey, info->va + offset, length);
}

Expected<void, std::string> ReferencePeer::write(uint32_t qpn, uint64_t offset,
                                                 std::span<const uint8_t> data) {
  const PeerQpInfo* info = find(qpn);
  if (info == nullptr) return Unexpected("write: no tester QP " + std::to_string(qpn));
  if (offset > info->length || data.size() > info->length - offset)
    return Unexpected(std::string("write: the data ends past the tester's region"));
  return device_.memory().write(info->lkey, info->va + offset, data);
}

void ReferencePeer::note_crafted_request(uint32_t qpn, uint32_t last_psn) {
  const transport::QueuePair* q = device_.qp(qpn);
  if (q == nullptr || !q->sq.empty() || q->attr.state != QpState::kRts) return;
  QpAttributes a = q->attr;
  a.sq_psn = wire::psn_add(last_psn, 1);
  (void)device_.modify_qp(qpn, a, transport::kAttrSqPsn);
}

bool ReferencePeer::busy() const {
  for (const auto& [qpn, info] : qps_) {
    const transport::QueuePair* q = device_.qp(qpn);
    if (q != nullptr && !q->sq.empty()) return true;
  }
  return false;
}

}  // namespace mr::peer
