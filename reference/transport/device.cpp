#include "reference/transport/device.h"

#include <algorithm>
#include <span>
#include <utility>

#include "reference/transport/completer.h"
#include "reference/transport/ext/secure_frame.h"
#include "reference/transport/ext_requester.h"
#include "reference/transport/ext_responder.h"
#include "reference/transport/read_responses.h"
#include "reference/transport/requester.h"
#include "reference/transport/responder.h"
#include "reference/transport/ud_responder.h"
#include "reference/wire/ecn.h"
#include "reference/wire/frame_decoder.h"
#include "reference/wire/opcode.h"
#include "reference/wire/trimmed_frame.h"

namespace mr::transport {
namespace {

Unexpected<VerbsError> verbs_error(std::string message) {
  return Unexpected(VerbsError{std::move(message)});
}

uint64_t sge_total(std::span<const Sge> sg) {
  uint64_t n = 0;
  for (const Sge& s : sg) n += s.length;
  return n;
}

// MR-QS-07: low 15 bits equal and non-zero, and at least one side a full member.
bool pkey_match(uint16_t a, uint16_t b) {
  return (a & 0x7fff) == (b & 0x7fff) && (a & 0x7fff) != 0 && ((a | b) & 0x8000) != 0;
}

bool same_ip(const IpAddress& a, const std::variant<wire::Ipv4, wire::Ipv6>& ip, bool source) {
  if (const auto* v4 = std::get_if<wire::Ipv4>(&ip)) {
    const auto* want = std::get_if<wire::Ipv4Address>(&a);
    return want && *want == (source ? v4->src : v4->dst);
  }
  const auto& v6 = std::get<wire::Ipv6>(ip);
  const auto* want = std::get_if<wire::Ipv6Address>(&a);
  return want && *want == (source ? v6.src : v6.dst);
}

wire::Transport transport_of(QpType t) {
  if (t == QpType::kUd) return wire::Transport::kUd;
  return t == QpType::kUc ? wire::Transport::kUc : wire::Transport::kRc;
}

// What a QP of `type` may post (IBTA 9.8, ibv_post_send): "" when allowed, else the reason.
std::string check_wr_for_type(QpType type, const SendWr& wr) {
  const SendOpcode op = wr.opcode;
  const bool send = op == SendOpcode::kSend || op == SendOpcode::kSendWithImm;
  const bool write = op == SendOpcode::kWrite || op == SendOpcode::kWriteWithImm;
  if (type == QpType::kUd) {
    if (!send)
      return "a UD QP posts only SEND and SEND_WITH_IMM, not " + std::string(to_string(op));
    if (!wr.ud)
      return "a UD send work request needs its destination (ud: ah, remote_qpn, remote_qkey)";
    if (wr.ud->remote_qpn > wire::u24::kMax) return "ud.remote_qpn is 24-bit";
    return "";
  }
  if (wr.ud) return "only a UD QP takes a ud destination in its work requests";
  if (type == QpType::kUc && !send && !write)
    return "a UC QP posts only SEND, SEND_WITH_IMM, RDMA_WRITE and RDMA_WRITE_WITH_IMM, not " +
           std::string(to_string(op));
  return "";
}

// The packet's destination is one of the device's addresses (its GIDs).
bool owns(const DeviceConfig& config, const std::variant<wire::Ipv4, wire::Ipv6>& ip) {
  if (same_ip(config.ip, ip, false)) return true;
  const auto* v6 = std::get_if<wire::Ipv6>(&ip);
  return v6 != nullptr && std::ranges::find(config.ipv6, v6->dst) != config.ipv6.end();
}

// A QP whose receiver side takes part in credit mode (section 26.7): CREDIT agreed, and in a
// state that receives requests.
bool grants_credit(const QueuePair& qp) {
  return qp.ext && qp.ext->credit_rx &&
         (qp.attr.state == QpState::kRtr || qp.attr.state == QpState::kRts ||
          qp.attr.state == QpState::kSqd);
}

// The packet's opcode row in its header set's table (an Ext opcode is unknown to Part I's).
const wire::OpcodeInfo* opcode_of(const wire::RocePacket& p) {
  return wire::opcode_info(p.bth.opcode, p.bth.header_set());
}

// A management-given EV set (section 20.1): "" when the device can use it, else the entry at
// fault, named as the attribute is ("ev_set[3].plane: ...").
std::string check_ev_set(const std::vector<ext::EvEntry>& set, uint8_t planes) {
  if (auto table = ext::EvTable::create(set, {}); !table) return table.error();
  for (size_t i = 0; i < set.size(); ++i) {
    if (set[i].plane >= planes)
      return "ev_set[" + std::to_string(i) + "].plane: " + std::to_string(set[i].plane) +
             " is not a plane of this device (it has " + std::to_string(planes) + ")";
  }
  return "";
}

}  // namespace

void enter_error(QueuePair& qp, QpContext& ctx) {
  if (qp.attr.state == QpState::kError) return;
  qp.attr.state = QpState::kError;
  qp.retransmit_deadline_ns.reset();
  qp.rnr_resume_ns.reset();
  if (!ctx.decide.completion.flushes_on_error) return;
  for (SendWqe& w : qp.sq) {
    if (w.completed) continue;
    w.completed = true;
    Completion c;
    c.wr_id = w.wr.wr_id;
    c.status = WcStatus::kWrFlushError;
    c.qp_num = qp.qpn;
    ctx.complete_send(qp, c);
  }
  qp.sq.clear();
  qp.send_index = 0;
  const auto flush = [&](const RecvWr& r) {
    Completion c;
    c.wr_id = r.wr_id;
    c.status = WcStatus::kWrFlushError;
    c.opcode = WcOpcode::kRecv;
    c.qp_num = qp.qpn;
    ctx.complete_recv(c);
  };
  // An Ext QP's receive WQEs already taken from its queue or SRQ for RQSNs (section 24) go
  // first: they were posted before those still queued.
  if (qp.ext) {
    for (const auto& [sequence, r] : qp.ext->wqes) flush(r);
    qp.ext->wqes.clear();
  }
  if (ctx.srq == nullptr) {
    for (const RecvWr& r : qp.rq) flush(r);
    qp.rq.clear();
  }
}

Device::Device(DeviceConfig config)
    : config_(std::move(config)),
      memory_(config_.seed),
      decide_(TransportDecisions::from(config_.mutants, config_.decision_log.get())),
      factory_(decide_.framing, decide_.extension.secure_sets_sx),
      qpn_state_(config_.seed * 0x9e3779b97f4a7c15ULL + 0x1234567) {
  config_.planes = std::clamp<uint8_t>(config_.planes, 1, 16);
}

uint32_t Device::allocate_qpn() {
  // QPNs 0 and 1 are special (SMI, GSI); the rest come from a seeded sequence so that a
  // run can be replayed, and are not simply 2, 3, 4 (a tester must not guess them).
  for (int attempt = 0; attempt < 1000; ++attempt) {
    qpn_state_ = qpn_state_ * 6364136223846793005ULL + 1442695040888963407ULL;
    const auto qpn = static_cast<uint32_t>(qpn_state_ >> 40) & wire::u24::kMax;
    if (qpn > 1 && qpn != wire::u24::kMax && !qps_.contains(qpn)) return qpn;
  }
  return 0;
}

Expected<uint32_t, VerbsError> Device::create_cq(uint32_t depth) {
  if (depth == 0 || depth > (1U << 20)) return verbs_error("cq depth must be 1..1048576");
  const uint32_t id = next_cq_++;
  cqs_.emplace(id, CompletionQueue(depth));
  return id;
}

Expected<uint32_t, VerbsError> Device::create_srq(uint32_t max_wr) {
  if (max_wr == 0) return verbs_error("srq max_wr must be positive");
  const uint32_t id = next_srq_++;
  srqs_.emplace(id, RingDeque<RecvWr>{});
  return id;
}

Expected<uint32_t, VerbsError> Device::create_qp(const QpInitAttributes& init) {
  if (!cqs_.contains(init.send_cq) || !cqs_.contains(init.recv_cq))
    return verbs_error("unknown cq");
  if (init.srq && !srqs_.contains(*init.srq)) return verbs_error("unknown srq");
  if (init.qpn && (*init.qpn <= 1 || *init.qpn >= wire::u24::kMax || qps_.contains(*init.qpn)))
    return verbs_error("qpn " + std::to_string(*init.qpn) + " is reserved or in use");
  const uint32_t qpn = init.qpn ? *init.qpn : allocate_qpn();
  if (qpn == 0) return verbs_error("no free qp number");
  auto qp = std::make_unique<QueuePair>();
  qp->qpn = qpn;
  qp->init = init;
  qps_.emplace(qpn, std::move(qp));
  return qpn;
}

Expected<void, VerbsError> Device::modify_qp(uint32_t qpn, const QpAttributes& attr,
                                             uint32_t mask) {
  auto it = qps_.find(qpn);
  if (it == qps_.end()) return verbs_error("unknown qp " + std::to_string(qpn));
  QueuePair& qp = *it->second;
  const QpState to = (mask & kAttrState) ? attr.state : qp.attr.state;
  if (mask & kAttrState) {
    if (auto why = check_transition(qp.attr.state, to, mask, qp.init.type); !why.empty())
      return verbs_error(std::string(why));
  }
  if (mask & kAttrEvSet) {
    // Section 20.1: the set is fixed when the QP enters RTR, for as long as it stays out of RESET.
    if (!(mask & kAttrState) || qp.attr.state != QpState::kInit || to != QpState::kRtr)
      return verbs_error("ev_set: given only with the move from INIT to RTR");
    if (!attr.ev_set) return verbs_error("ev_set: the mask names it but none is given");
    if (auto why = check_ev_set(*attr.ev_set, config_.planes); !why.empty())
      return verbs_error(why);
  }
  const bool live_secure = qp.ext && qp.ext->secure_tx;
  if ((mask & kAttrSecureSa) && !attr.secure_sa)
    return verbs_error("secure_sa: the mask names it but none is given");
  if ((mask & kAttrSecureSa) && !live_secure && qp.attr.state != QpState::kReset &&
      qp.attr.state != QpState::kInit)
    return verbs_error("secure_sa: the QP is not secure; keys are installed before INIT to RTR");
  if ((mask & kAttrSecureSa) && live_secure) {
    for (const ext::SecurityAssociation& sa : attr.secure_sa->tx)
      if (qp.ext->secure_tx->installed(sa.epoch))
        return verbs_error("secure_sa: epoch " + std::to_string(sa.epoch) +
                           " is already installed for sending; keys are never replaced");
    for (const ext::SecurityAssociation& sa : attr.secure_sa->rx)
      if (qp.ext->secure_rx->installed(sa.epoch))
        return verbs_error("secure_sa: epoch " + std::to_string(sa.epoch) +
                           " is already installed for receiving; keys are never replaced");
    if (attr.secure_sa->rekey_packets != 0)
      return verbs_error("secure_sa: rekey_packets is set with the QP's first keys only");
  }
  if ((mask & kAttrSecureRotate) && !live_secure)
    return verbs_error("secure_rotate: the QP has no SECURE agreed (section 19.4)");
  if (mask & kAttrPathMtu) {
    if (attr.path_mtu != 256 && attr.path_mtu != 512 && attr.path_mtu != 1024 &&
        attr.path_mtu != 2048 && attr.path_mtu != 4096) {
      return verbs_error("path_mtu must be 256, 512, 1024, 2048 or 4096");
    }
    qp.attr.path_mtu = attr.path_mtu;
  }
  if ((mask & kAttrTimeout) && attr.timeout > 31) return verbs_error("timeout must be 0..31");
  if ((mask & kAttrRetryCnt) && attr.retry_cnt > 7) return verbs_error("retry_cnt must be 0..7");
  if ((mask & kAttrRnrRetry) && attr.rnr_retry > 7) return verbs_error("rnr_retry must be 0..7");
  if ((mask & kAttrMinRnrTimer) && attr.min_rnr_timer > 31)
    return verbs_error("min_rnr_timer must be 0..31");
  if ((mask & (kAttrRqPsn | kAttrSqPsn | kAttrDestQpn)) &&
      (attr.rq_psn > wire::kPsnMask || attr.sq_psn > wire::kPsnMask ||
       attr.dest_qpn > wire::u24::kMax)) {
    return verbs_error("psn and qpn values are 24-bit");
  }
  if (mask & kAttrAccessFlags) qp.attr.access_flags = attr.access_flags;
  if (mask & kAttrPkey) qp.attr.pkey = attr.pkey;
  if (mask & kAttrAddress) qp.attr.av = attr.av;
  if (mask & kAttrDestQpn) qp.attr.dest_qpn = attr.dest_qpn;
  if (mask & kAttrRqPsn) {
    qp.attr.rq_psn = attr.rq_psn;
    qp.epsn = attr.rq_psn;
  }
  if (mask & kAttrSqPsn) {
    qp.attr.sq_psn = attr.sq_psn;
    qp.next_psn = attr.sq_psn;
    qp.acked_psn = wire::psn_add(attr.sq_psn, -1);
  }
  if (mask & kAttrTimeout) qp.attr.timeout = attr.timeout;
  if (mask & kAttrRetryCnt) {
    qp.attr.retry_cnt = attr.retry_cnt;
    qp.retries_left = attr.retry_cnt;
  }
  if (mask & kAttrRnrRetry) {
    qp.attr.rnr_retry = attr.rnr_retry;
    qp.rnr_retries_left = attr.rnr_retry;
  }
  if (mask & kAttrMinRnrTimer) qp.attr.min_rnr_timer = attr.min_rnr_timer;
  if (mask & kAttrMaxRdAtomic) qp.attr.max_rd_atomic = attr.max_rd_atomic;
  if (mask & kAttrMaxDestRdAtomic) qp.attr.max_dest_rd_atomic = attr.max_dest_rd_atomic;
  if (mask & kAttrQkey) qp.attr.qkey = attr.qkey;
  if (mask & kAttrPeerMxcap) qp.attr.peer_mxcap = attr.peer_mxcap;
  if (mask & kAttrOfferedMxcap) qp.attr.offered_mxcap = attr.offered_mxcap;
  if (mask & kAttrEvSet) qp.attr.ev_set = attr.ev_set;
  // Section 19.4: keys before INIT to RTR are the QP's first; later ones a next epoch's.
  if ((mask & kAttrSecureSa) && live_secure) {
    for (const ext::SecurityAssociation& sa : attr.secure_sa->tx) qp.ext->secure_tx->install(sa);
    for (const ext::SecurityAssociation& sa : attr.secure_sa->rx) qp.ext->secure_rx->install(sa);
  } else if (mask & kAttrSecureSa) {
    qp.attr.secure_sa = attr.secure_sa;
  }
  if (mask & kAttrSecureRotate) qp.ext->secure_tx->request_rotation();
  if ((mask & kAttrState) && qp.attr.state == QpState::kInit && to == QpState::kRtr) {
    if (auto ok = enter_ext_mode(qp); !ok) return ok;
  } else if (qp.ext && (mask & kAttrState) && to != QpState::kReset && !(mask & kAttrPeerMxcap) &&
             !decide_.extension.keeps_ext_mode_until_reset) {
    qp.ext.reset();  // the ext-mode-dropped-on-modify mutant (MR-EX-10)
  }
  // The sender's records start at sq_psn, which RTR to RTS sets; their parameters are the
  // ones the QP got when it entered Ext mode.
  if (qp.ext && (mask & kAttrSqPsn))
    qp.ext->sent = ext::SentPsnRecords(attr.sq_psn, qp.ext->sent.parameters());
  if (mask & kAttrState) {
    if (to == QpState::kError) {
      QpContext ctx = context(qp, 0);
      enter_error(qp, ctx);
    } else if (to == QpState::kReset) {
      const uint32_t keep_qpn = qp.qpn;
      const QpInitAttributes keep_init = qp.init;
      qp = QueuePair{};
      qp.qpn = keep_qpn;
      qp.init = keep_init;
    } else {
      qp.attr.state = to;
    }
    note_activity(qp);
  }
  return {};
}

// Section 18: Ext if both MXCAP blocks allow it (RC QPs only); the QP stays in that mode
// until RESET. A base-only device (no mxcap) leaves every QP in base mode.
Expected<void, VerbsError> Device::enter_ext_mode(QueuePair& qp) {
  if (qp.init.type != QpType::kRc || !decide_.extension.negotiates_ext) return {};
  std::optional<wire::Mxcap> peer = qp.attr.peer_mxcap;
  // The ext-without-ooo mutant reads a peer block without the core bits as if it had them.
  if (peer && !decide_.extension.requires_sack_and_ooo)
    peer->features = peer->features.value() | wire::kMxcapSack | wire::kMxcapOoo;
  // Section 19.4: SECURE in both blocks needs the QP's keys, both ways.
  const std::optional<ext::SecurityAssociations>& sas = qp.attr.secure_sa;
  const bool has_sas = sas && !sas->tx.empty() && !sas->rx.empty();
  const std::optional<wire::Mxcap> local = offered_mxcap(qp);
  auto agreed = ext::negotiate(local, peer, has_sas || !decide_.extension.secure_requires_sa);
  if (!agreed) return verbs_error(agreed.error());
  if (!*agreed) return {};
  // The ext-secure-without-sa mutant goes on without SECURE rather than failing (MR-SE-01).
  if (!has_sas)
    (*agreed)->features2 = static_cast<uint8_t>((*agreed)->features2 & ~wire::kMxcapSecure);
  // The ext-secure-by-keys-alone mutant turns SECURE on wherever it has keys.
  if (has_sas && !decide_.extension.secure_needs_both_blocks)
    (*agreed)->features2 = static_cast<uint8_t>((*agreed)->features2 | wire::kMxcapSecure);
  // The ext-adaptive-without-agreement mutant adapts wherever MULTIPATH is agreed (MR-MU-12).
  if (!decide_.extension.adapts_only_when_agreed && (*agreed)->has(wire::kMxcapMultipath))
    (*agreed)->features = static_cast<uint8_t>((*agreed)->features | wire::kMxcapAdaptive);
  // The ext-credit-without-agreement mutant runs credits when its own block offers them.
  if (!decide_.extension.credit_only_when_agreed &&
      (local->features.value() & wire::kMxcapCredit) != 0)
    (*agreed)->features = static_cast<uint8_t>((*agreed)->features | wire::kMxcapCredit);
  // Section 20.1: the management plane's set, else the generated one. An ASSUMED_BAD entry
  // is probed when PATHPROBE is agreed, else it comes back after the hold-down (25.1).
  ext::PathFailureParameters paths = config_.ext.paths;
  paths.path_probe = (*agreed)->has(wire::kMxcapPathProbe);
  // The ext-min-active-ignored mutant lets timeouts take every GOOD entry (MR-PF-05).
  if (!decide_.extension.keeps_min_active_evs) paths.min_active = 0;
  // The ext-holddown-never-ends mutant: a hold-down of about 30 years (MR-PF-13).
  if (!decide_.extension.holddown_returns_ev) paths.holddown_ns = uint64_t{1} << 60;
  // The ext-flaps-not-damped mutant: no count of failures ever damps (MR-PF-17).
  if (!decide_.extension.damps_flapping_evs) paths.flap_max = ~uint32_t{0};
  std::vector<ext::EvEntry> set;
  if (qp.attr.ev_set) {
    set = *qp.attr.ev_set;
  } else {
    set = ext::EvTable::default_set(qp.qpn, config_.planes, config_.ext.ev_set_size);
    // The ext-default-set-skewed mutant numbers the EVs from 16 x QPN + 1 (MR-MU-11).
    if (!decide_.extension.default_evs_aligned)
      for (ext::EvEntry& e : set) e.ev = static_cast<uint16_t>(0xC000 | ((e.ev + 1) & 0x3FFF));
  }
  auto evs = ext::EvTable::create(std::move(set), paths);
  if (!evs) return verbs_error("ev_set: " + evs.error());
  ext::ExtQpParameters parameters = ext_parameters();
  // A connection's own offer sets the window this end advertises (MXCAP MPR, section 18).
  if (qp.attr.offered_mxcap) parameters.local_mpr = std::max<uint8_t>(local->mpr.value(), 1);
  qp.ext = std::make_unique<ext::ExtQpState>(**agreed, std::move(*evs), qp.next_psn, qp.epsn,
                                             parameters, qp.init.srq.has_value(), now_ns_);
  qp.ext->evs.count_into(&counters_.ev);
  if ((*agreed)->has(wire::kMxcapSecure)) {
    const ext::SecureParameters secure = secure_parameters(*sas);
    qp.ext->secure_tx.emplace(sas->tx, secure);
    qp.ext->secure_rx.emplace(sas->rx, secure);
  }
  // MR-MU-01, MR-MU-09: first transmissions spray with MULTIPATH only; the mutants
  // ext-single-ev-multipath and ext-sprays-without-multipath do the other.
  const bool multipath = (*agreed)->has(wire::kMxcapMultipath);
  if (multipath ? !decide_.extension.sprays_with_multipath
                : !decide_.extension.single_ev_without_multipath)
    qp.ext->selector.set_spraying(!multipath);
  for (uint8_t plane = 0; plane < config_.planes; ++plane)
    if (plane_down_[plane] && decide_.extension.port_down_stops_evs)  // not the mutant
      qp.ext->evs.port_down(plane, now_ns_);
  if (qp.ext->credit_rx &&
      std::find(credit_qpns_.begin(), credit_qpns_.end(), qp.qpn) == credit_qpns_.end()) {
    if (!credit_scheduler_) credit_scheduler_.emplace(credit_parameters());
    credit_qpns_.push_back(qp.qpn);
  }
  return {};
}

// What the QP offers: the device's block, narrowed to a connection's offer when the management
// plane gave one (never more than the device has: its feature bits are ANDed with the device's).
std::optional<wire::Mxcap> Device::offered_mxcap(const QueuePair& qp) const {
  if (!config_.mxcap || !qp.attr.offered_mxcap) return config_.mxcap;
  wire::Mxcap m = *qp.attr.offered_mxcap;
  m.features = static_cast<uint8_t>(m.features.value() & config_.mxcap->features.value());
  m.features2 = static_cast<uint8_t>(m.features2.value() & config_.mxcap->features2.value());
  return m;
}

// MR-EX-07: an MXH of another version is another protocol's header: dropped, unanswered
// (which the ext-mxh-version-unchecked mutant breaks). Its reserved bits are ignored
// (MR-EX-09), but by the ext-reserved-bits-checked mutant, which refuses them set.
bool Device::refuses_mxh(const wire::RocePacket& p) const {
  if (!p.mxh) return false;
  if ((p.mxh->resv1 != 0 || p.mxh->resv8 != 0) && !decide_.extension.ignores_reserved_bits)
    return true;
  return p.mxh->ver != wire::kExtVersion && decide_.extension.checks_mxh_version;
}

ext::ExtQpParameters Device::ext_parameters() const {
  ext::ExtQpParameters parameters = config_.ext;
  // The mutants of the sender's timers (section 21.2).
  if (!decide_.extension.waits_rto_init) parameters.rto.initial_ns = parameters.rto.min_ns;
  if (!decide_.extension.backs_off_rto) parameters.rto.max_ns = parameters.rto.initial_ns;
  if (!decide_.extension.fails_after_retry_budget)
    parameters.sender.retry_limit = ext::ExtSenderParameters::kUnlimitedRetries;
  // The ext-adaptive-never-explores mutant: no first transmission is a multiple (MR-MU-15).
  if (!decide_.extension.adaptive_explores) parameters.adaptive.explore_every = ~uint32_t{0};
  // The ext-adaptive-never-recycles mutant: a recycle list of no entries (MR-MU-14).
  if (!decide_.extension.adaptive_recycles) parameters.adaptive.recycle_depth = 0;
  // The ext-ce-acks-folded mutant answers CE-marked packets as any other (MR-MU-17).
  if (!decide_.extension.acks_each_ce_when_adaptive) parameters.ce_acks_when_adaptive = false;
  parameters.credit = credit_parameters();
  // The mutants of the sender window (section 26.2).
  ext::CongestionParameters& cc = parameters.congestion;
  if (!decide_.extension.starts_at_cwnd_init) cc.cwnd_init = cc.cwnd_max;
  if (!decide_.extension.increases_proportionally) cc.prop_inc = 0;
  if (!decide_.extension.increases_fairly) cc.fair_inc = 0;
  if (!decide_.extension.decreases_on_ecn_and_delay) cc.md_gain = {0, 1};
  if (!decide_.extension.ecn_low_delay_holds) cc.ecn_low_delay_holds = false;
  if (!decide_.extension.gates_decrease) cc.gates_decrease = false;
  if (!decide_.extension.samples_base_rtt) cc.samples_base_rtt = false;
  if (!decide_.extension.base_rtt_starts_at_parameter) cc.base_rtt_starts_at_parameter = false;
  if (!decide_.extension.trim_takes_packet_off) cc.loss_takes_packet_off = false;
  if (!decide_.extension.quick_adapts) cc.qa_gate = {0, 1};
  if (!decide_.extension.ignores_ecn_after_quick_adapt) cc.quick_adapt_ignores_ecn = false;
  if (!decide_.extension.paces) cc.pace_burst = uint64_t{1} << 40;
  // The mutants of the sender's tail-loss probe and window (section 21.2).
  ext::ExtSenderParameters& sender = parameters.sender;
  if (!decide_.extension.probes_tail_losses) sender.tlp_max_probes = 0;
  if (!decide_.extension.bounds_tail_loss_probes) sender.tlp_max_probes = 1'000;
  if (!decide_.extension.probe_keeps_rto) sender.probe_keeps_rto = false;
  if (!decide_.extension.respects_mpr_window) sender.follows_advertised_mpr = false;
  if (!decide_.extension.reads_sack_offset) sender.reads_sack_offset = false;
  if (!decide_.extension.waits_ooo_threshold) sender.ooo_threshold = 1;
  parameters.trim = trim_parameters();
  // The mutant of resource NAKs that never gives a message up (MR-NF-09).
  if (!decide_.extension.bounds_resource_naks) parameters.resource_retry = ~uint32_t{0};
  // The mutants of the receiver's ACK policy (section 21.1).
  if (!decide_.extension.acks_every_n) parameters.acks.every = ~uint32_t{0};
  if (!decide_.extension.answers_awaited_ar) parameters.acks.answers_awaited_ar = false;
  if (!decide_.extension.reports_service_time) parameters.acks.reports_service_time = false;
  if (!decide_.extension.advertises_mpr) parameters.acks.advertises_mpr = false;
  if (!decide_.extension.keeps_window_edge) parameters.acks.keeps_window = false;
  if (!decide_.extension.offsets_only_beyond_64) parameters.acks.ara_lookback = 0;
  if (!decide_.extension.rotates_sack_bitmap) parameters.acks.rotates_bitmap = false;
  return parameters;
}

// The mutants of receiver credits (section 26.7).
ext::CreditParameters Device::credit_parameters() const {
  ext::CreditParameters credit = config_.ext.credit;
  constexpr uint32_t kMostCredit = ((1U << 15) - 1) * ext::kCreditUnit;  // 2^15 - 1 units
  if (!decide_.extension.respects_credit_limit) credit.unsolicited = kMostCredit;
  if (!decide_.extension.takes_only_newer_grants) credit.modulo_grant_order = false;
  if (!decide_.extension.raises_only_on_demand) credit.raises_need_demand = false;
  if (!decide_.extension.raises_round_robin) credit.round_robin = false;
  if (!decide_.extension.bounds_outstanding_credit) credit.max_outstanding = kMostCredit;
  if (!decide_.extension.paces_credit) credit.line_rate_mbps = uint64_t{1} << 40;
  if (!decide_.extension.expires_credit) credit.timeout_ns = uint64_t{1} << 60;
  return credit;
}

// Section 19.4's parameters (the QP's own rekey limit when the management plane set one),
// as the secure-mode mutants change them.
ext::SecureParameters Device::secure_parameters(const ext::SecurityAssociations& sas) const {
  ext::SecureParameters secure = config_.ext.secure;
  if (sas.rekey_packets != 0) secure.rekey_packets = sas.rekey_packets;
  if (!decide_.extension.secure_rekeys_at_limit) secure.rekey_packets = ~uint64_t{0};
  secure.checks_replay = decide_.extension.secure_checks_replay;
  secure.accepts_reordered_pns = decide_.extension.secure_accepts_reordered_pns;
  secure.new_pn_per_packet = decide_.extension.secure_new_pn_per_packet;
  secure.rotates_on_request = decide_.extension.secure_rotates_on_request;
  secure.drains_previous_epoch = decide_.extension.secure_drains_previous_epoch;
  return secure;
}

// The mutant of trimming that refuses short cuts (MR-TR-09).
ext::TrimParameters Device::trim_parameters() const {
  ext::TrimParameters trim = config_.ext.trim;
  if (!decide_.extension.naks_short_trims) trim.min_ip_bytes = 256;
  return trim;
}

Expected<QpAttributes, VerbsError> Device::query_qp(uint32_t qpn) const {
  auto it = qps_.find(qpn);
  if (it == qps_.end()) return verbs_error("unknown qp " + std::to_string(qpn));
  QpAttributes attr = it->second->attr;
  attr.secure_sa.reset();  // keys are never read back
  attr.ext_mode = it->second->ext != nullptr;
  if (attr.ext_mode) {
    const ext::EvTable& evs = it->second->ext->evs;
    attr.ev_set.emplace();
    for (size_t i = 0; i < evs.size(); ++i) {
      attr.ev_set->push_back(evs.entry(i));
      attr.ev_states.push_back(evs.state(i));
    }
    if (it->second->ext->cc) attr.cwnd = it->second->ext->cc->cwnd();
  }
  return attr;
}

Expected<void, VerbsError> Device::destroy_qp(uint32_t qpn) {
  active_.erase(qpn);
  if (qps_.erase(qpn) == 0) return verbs_error("unknown qp " + std::to_string(qpn));
  return {};
}

Expected<void, VerbsError> Device::post_send(uint32_t qpn, const SendWr& wr) {
  auto it = qps_.find(qpn);
  if (it == qps_.end()) return verbs_error("unknown qp " + std::to_string(qpn));
  QueuePair& qp = *it->second;
  if (qp.attr.state == QpState::kReset || qp.attr.state == QpState::kInit ||
      qp.attr.state == QpState::kRtr) {
    return verbs_error("post_send needs a QP in RTS, SQD or ERROR; it is " +
                       std::string(to_string(qp.attr.state)));
  }
  if (qp.sq.size() >= qp.init.max_send_wr) return verbs_error("send queue full");
  if (auto why = check_wr_for_type(qp.init.type, wr); !why.empty()) return verbs_error(why);
  const uint64_t total = sge_total(wr.sg_list);
  if (total > (uint64_t{1} << 31)) return verbs_error("message longer than 2^31 bytes");
  const bool atomic = wr.opcode == SendOpcode::kCompareSwap || wr.opcode == SendOpcode::kFetchAdd;
  if (atomic && total != 8)
    return verbs_error("an atomic work request needs exactly one 8-byte SGE");
  for (const Sge& s : wr.sg_list) {
    const uint32_t access =
        (wr.opcode == SendOpcode::kRead || atomic) ? uint32_t{memory::kLocalWrite} : 0U;
    if (auto ok = memory_.resolve_local(s.lkey, qp.init.pd, s.addr, s.length, access); !ok) {
      return verbs_error("sge lkey 0x" + std::to_string(s.lkey) + ": " +
                         std::string(memory::to_string(ok.error())));
    }
  }
  // Section 26.7: posted, not yet sent, so part of the Pending field (a READ's request too).
  if (qp.ext && qp.ext->credit_tx)
    qp.ext->unsent_credit_bytes += ext::credit_bytes(
        wr.opcode == SendOpcode::kRead || atomic ? 0 : total);  // a request without payload
  SendWqe w;
  w.wr = wr;
  w.length = static_cast<uint32_t>(total);
  qp.sq.push_back(std::move(w));
  ++counters_.rdma_sends;
  active_.insert(qp.qpn);
  if (qp.attr.state == QpState::kError) {
    QpContext ctx = context(qp, 0);
    qp.attr.state = QpState::kRts;  // re-enter to flush the new WQE the same way
    enter_error(qp, ctx);
  }
  return {};
}

Expected<void, VerbsError> Device::post_recv(uint32_t qpn, const RecvWr& wr) {
  auto it = qps_.find(qpn);
  if (it == qps_.end()) return verbs_error("unknown qp " + std::to_string(qpn));
  QueuePair& qp = *it->second;
  if (qp.init.srq) return verbs_error("qp uses an srq: post to the srq");
  if (qp.attr.state == QpState::kReset) return verbs_error("post_recv needs a QP out of RESET");
  if (qp.rq.size() >= qp.init.max_recv_wr) return verbs_error("receive queue full");
  qp.rq.push_back(wr);
  if (qp.attr.state == QpState::kError) {
    QpContext ctx = context(qp, 0);
    qp.attr.state = QpState::kRts;
    enter_error(qp, ctx);
  }
  return {};
}

Expected<void, VerbsError> Device::post_srq_recv(uint32_t srq, const RecvWr& wr) {
  auto it = srqs_.find(srq);
  if (it == srqs_.end()) return verbs_error("unknown srq " + std::to_string(srq));
  it->second.push_back(wr);
  return {};
}

Expected<std::vector<Completion>, VerbsError> Device::poll_cq(uint32_t cq, size_t max) {
  auto it = cqs_.find(cq);
  if (it == cqs_.end()) return verbs_error("unknown cq " + std::to_string(cq));
  return it->second.poll(max);
}

Expected<void, VerbsError> Device::req_notify_cq(uint32_t cq, bool solicited_only) {
  auto it = cqs_.find(cq);
  if (it == cqs_.end()) return verbs_error("unknown cq " + std::to_string(cq));
  it->second.arm(solicited_only);
  return {};
}

Expected<size_t, VerbsError> Device::take_cq_events(uint32_t cq) {
  auto it = cqs_.find(cq);
  if (it == cqs_.end()) return verbs_error("unknown cq " + std::to_string(cq));
  return it->second.take_events();
}

QpContext Device::context(QueuePair& qp, uint64_t now_ns) {
  RingDeque<RecvWr>* srq = qp.init.srq ? &srqs_.at(*qp.init.srq) : nullptr;
  return QpContext{memory_,
                   decide_,
                   factory_,
                   counters_,
                   outbox_,
                   cqs_.at(qp.init.send_cq),
                   cqs_.at(qp.init.recv_cq),
                   srq,
                   now_ns,
                   step_trace_,
                   base_plane(qp.qpn),
                   config_.mxcap && config_.mxcap->ev_mode == 1,
                   qp.ext ? &qp.ext->evs : nullptr,
                   qp.ext && qp.ext->secure_tx ? &*qp.ext->secure_tx : nullptr};
}

const QueuePair* Device::qp(uint32_t qpn) const {
  auto it = qps_.find(qpn);
  return it == qps_.end() ? nullptr : it->second.get();
}

void Device::receive(std::span<const uint8_t> frame, uint64_t now_ns) {
  if (!wire::decode_frame_into(frame, wire::Framing::kEthernet, rx_)) {
    // A cut frame's lengths disagree (the switch left them) or its ICRC is gone.
    if (!receive_trimmed(frame, now_ns)) ++counters_.dropped_malformed;
    return;
  }
  const auto* roce = std::get_if<wire::DecodedRoce>(&rx_);
  if (roce == nullptr) return;
  const wire::RocePacket& p = roce->packet;
  // Receive pipeline in rxe's order (notes §2.0): address, header, QP, state, keys, ICRC.
  if (!owns(config_, p.ip)) {
    ++counters_.dropped_address;
    return;
  }
  now_ns_ = std::max(now_ns_, now_ns);
  if (!roce->icrc_ok() && receive_trimmed(frame, now_ns)) return;
  if (!passes_header_checks(*roce)) return;
  if (p.bth.opcode == wire::kOpCnp) {
    receive_cnp(p, now_ns);
    // MR-CC-05: a CE-marked CNP never draws a CNP; the broken device answers it.
    if (wire::ecn_of(p) == wire::kEcnCe && !decide_.congestion.ce_marked_cnp_unanswered) {
      if (auto it = qps_.find(p.bth.dqpn); it != qps_.end()) notify_congestion(*it->second, now_ns);
    }
    return;
  }
  QueuePair* qp = admit(p);
  if (qp == nullptr) return;
  // Section 19.4: a secure packet is checked before anything of the QP reads it.
  const wire::RocePacket* readable = qp->ext ? open_secure(*qp, frame, p, true, now_ns) : &p;
  if (readable == nullptr) return;
  ++counters_.rcvd_pkts;
  // MR-CR-16: nothing answers a CREDIT packet, a CNP neither.
  if (wire::ecn_of(p) == wire::kEcnCe && p.bth.opcode != wire::kOpExtCredit)
    notify_congestion(*qp, now_ns);
  deliver(*qp, *readable, now_ns);
}

// Section 23: a frame with a trim mark that its length or its ICRC shows was cut, for an Ext
// QP that agreed TRIM, is read from its headers alone and never placed: a request draws NAK
// 0x65 or 0x66, a READ response a reissue, anything else nothing (MR-TR-16). True when the
// frame was taken as trimmed (handled or silently discarded); false leaves it to the
// ordinary path, where a QP without TRIM drops it for its ICRC (MR-TR-08).
bool Device::receive_trimmed(std::span<const uint8_t> frame, uint64_t now_ns) {
  if (!config_.mxcap || (config_.mxcap->features & wire::kMxcapTrim) == 0) return false;
  const auto t = wire::read_trimmed_frame(frame);
  if (!t) return false;
  ext::TrimParameters trim = trim_parameters();
  trim.enabled = true;
  const ext::HeldPacket held{.dscp = t->dscp(),
                             .ip_bytes_held = t->ip_bytes_held,
                             .ip_length_field = t->ip_length_field,
                             .icrc_ok = false};  // a whole packet with a good ICRC never gets here
  if (ext::classify_trim(held, trim) != ext::TrimClass::kTrimmed) return false;
  const wire::RocePacket& p = t->packet;
  if (!owns(config_, p.ip) || !p.bth.is_ext()) return false;
  // The ext-trim-checks-ip-checksum mutant: a switch that rewrote the DSCP without the
  // checksum loses the packet (MR-TR-14).
  if (const auto* v4 = std::get_if<wire::Ipv4>(&p.ip);
      v4 && v4->chksum != v4->compute_checksum() && !decide_.extension.trim_ignores_ip_checksum)
    return true;
  auto it = qps_.find(p.bth.dqpn);
  if (it == qps_.end() || !it->second->ext) return false;
  if (!it->second->ext->agreement.has(wire::kMxcapTrim) &&
      decide_.extension.trims_only_when_agreed)  // not by the ext-trim-without-agreement mutant
    return false;
  // MR-TR-04: the QP's state, addresses and P_Key as for any packet; BTH and MXH intact.
  QueuePair* qp = admit(p);
  if (qp == nullptr) return true;
  // MR-SE-10: a trimmed secure packet counts only with its header block intact, its HTAG
  // verified and its PN fresh; before that it changes nothing, not even a counter.
  if (open_secure(*qp, frame, p, false, now_ns) == nullptr) return true;
  ++counters_.ext_trimmed_received;
  // MR-TR-16: a cut ACK or NAK (no MXH) changes nothing, but for the ext-trimmed-ack-processed
  // mutant, which reads one whose AETH and SACKETH survived.
  if (p.aeth && p.sacketh && !decide_.extension.discards_trimmed_control) {
    now_ns_ = std::max(now_ns_, now_ns);
    QpContext ctx = context(*qp, now_ns);
    complete_ext_response(*qp, p, ctx);
    run_ext_requester(*qp, ctx);
    return true;
  }
  if (!p.mxh) return true;
  if (refuses_mxh(p)) {  // MR-EX-07, as in deliver(): trimmed or whole, nothing
    ++counters_.dropped_tver;
    return true;
  }
  now_ns_ = std::max(now_ns_, now_ns);
  QpContext ctx = context(*qp, now_ns);
  const auto* info = wire::opcode_info(p.bth.opcode, p.bth.header_set());
  if (info == nullptr) return true;
  if (!info->is(wire::kResponse)) {
    respond_ext_trimmed(*qp, p, held, trim, ctx);
  } else if (is_read_response(p.bth.opcode)) {
    complete_trimmed_read_response(*qp, p, ctx);
  }
  run_ext_requester(*qp, ctx);
  note_activity(*qp);
  return true;
}

// Section 19.4, in its receiver order: SX agrees with the QP's SECURE state; the SECH names a
// key the QP may use now; the PN is no replay; the tag (the HTAG of a trimmed packet)
// verifies; then the PN is recorded and the payload decrypted. Any failure discards the
// packet silently, so that forged traffic draws nothing (MR-SE-05, MR-SE-06, MR-SE-11,
// MR-SE-13).
const wire::RocePacket* Device::open_secure(QueuePair& qp, std::span<const uint8_t> frame,
                                            const wire::RocePacket& p, bool whole,
                                            uint64_t now_ns) {
  ext::ExtQpState& x = *qp.ext;
  if (!x.secure_rx) {
    if (!p.bth.sx() || !decide_.extension.secure_refuses_sx_without_secure) return &p;
    ++counters_.se_auth_fail;
    return nullptr;
  }
  if (!p.bth.sx() || !p.sech) {
    ++counters_.se_auth_fail;
    return nullptr;
  }
  auto key = x.secure_rx->admit(*p.sech, now_ns);
  if (!key) {
    ++(key.error() == ext::SecureRefusal::kReplay ? counters_.se_replay : counters_.se_auth_fail);
    return nullptr;
  }
  const uint64_t pn = p.sech->pn.value();
  const auto at = ext::secure_layout(frame, p, whole);
  bool verified = false;
  if (at && whole) {
    // The ext-secure-tag-unchecked mutant reads the payload whatever the tag says.
    verified = ext::open_payload(frame, *at, *key->gcm, key->salt, pn, rx_plaintext_) ||
               !decide_.extension.secure_checks_tag;
  } else if (at) {
    verified = ext::header_tag_verifies(frame, *at, *key->gcm, key->salt, pn) ||
               !decide_.extension.secure_trim_checks_htag;
  }
  if (!verified) {
    ++counters_.se_auth_fail;
    return nullptr;
  }
  x.secure_rx->record(*p.sech, now_ns);
  if (!whole) return &p;
  rx_opened_ = p;
  const std::span<const uint8_t> plain(rx_plaintext_);
  rx_opened_.payload = plain.first(std::min(p.payload.size(), plain.size()));
  rx_opened_.pad = plain.subspan(rx_opened_.payload.size());
  return &rx_opened_;
}

// ICRC, ECN, TVer and MigReq: what a packet is judged by before its QP is looked up.
bool Device::passes_header_checks(const wire::DecodedRoce& roce) {
  const wire::RocePacket& p = roce.packet;
  const bool icrc_checked = decide_.receive.checks_icrc &&
                            (p.bth.opcode != wire::kOpCnp || decide_.congestion.cnp_icrc_checked);
  if (!roce.icrc_ok() && icrc_checked) {
    ++counters_.icrc_errors;  // MR-IC-02: silently dropped
    return false;
  }
  if (wire::ecn_of(p) == wire::kEcnCe) {
    ++counters_.ce_marked_received;
    if (!decide_.receive.keeps_ce_marked_packets) return false;
  }
  // TVer 1 is Part II's, for a device that offers it; which QP may take it, deliver() says.
  const bool ext_version = p.bth.version == wire::kExtVersion && config_.mxcap;
  if (p.bth.version != 0 && !ext_version && decide_.receive.checks_bth_version) {
    ++counters_.dropped_tver;  // MR-WF-03
    return false;
  }
  return !p.bth.migreq || decide_.receive.keeps_migreq_packets;
}

// The QP the packet is for, if its transport, the QP's state, the address vector, the VLAN
// priority and the P_Key let it in; each refusal counted.
QueuePair* Device::admit(const wire::RocePacket& p) {
  auto it = qps_.find(p.bth.dqpn);
  if (p.bth.dqpn == 0 || it == qps_.end()) {
    ++counters_.dropped_no_qp;  // MR-WF-13
    return nullptr;
  }
  QueuePair& qp = *it->second;
  // An Ext packet by table 19.1, where PROBE, CREDIT and RESYNC are RC opcodes too.
  const auto* info = opcode_of(p);
  const QpType type = qp.init.type;
  const bool own = info && info->transport == transport_of(type);  // MR-WF-12
  const bool uc_as_rc = type == QpType::kRc && info && info->transport == wire::Transport::kUc &&
                        !decide_.receive.checks_transport;
  if (!own && !uc_as_rc) {
    ++counters_.dropped_transport;  // MR-WF-12
    return nullptr;
  }
  const bool response = info->is(wire::kResponse);
  const QpState s = qp.attr.state;
  bool state_ok = response ? (s == QpState::kRts || s == QpState::kSqd)
                           : (s == QpState::kRtr || s == QpState::kRts || s == QpState::kSqd);
  if (response && s == QpState::kRtr && !decide_.receive.rtr_refuses_responses) state_ok = true;
  if (!response && s == QpState::kInit && !decide_.receive.init_refuses_requests) state_ok = true;
  if (s == QpState::kError && !decide_.receive.error_state_silent) state_ok = true;
  if (!state_ok) {
    ++counters_.dropped_state;  // MR-QS-01, MR-QS-03, MR-QS-04
    return nullptr;
  }
  // The reset-state-accepts mutant does not gate by state at all, so an INIT QP (which has
  // no address vector yet) is not held to one either.
  const bool ungated = s == QpState::kInit && !decide_.receive.init_refuses_requests;
  // A UD QP has no peer: any source may send it datagrams.
  if (!ungated && type != QpType::kUd &&
      (!same_ip(qp.attr.av.dip, p.ip, true) || !same_ip(qp.attr.av.sip, p.ip, false))) {
    ++counters_.dropped_address;  // MR-QS-05
    return nullptr;
  }
  if (!decide_.receive.ignores_vlan_priority && qp.attr.av.vlan_id && p.vlan &&
      (p.vlan->prio != qp.attr.av.vlan_prio || p.vlan->id != 0)) {
    ++counters_.dropped_address;  // the fault MR-WF-17 forbids
    return nullptr;
  }
  if (!pkey_match(p.bth.pkey, qp.attr.pkey) && decide_.receive.checks_pkey) {
    counters_.bad_pkey_cntr = std::min<uint64_t>(counters_.bad_pkey_cntr + 1, 0xffff);  // MR-QS-06
    return nullptr;
  }
  return &qp;
}

// The admitted packet to its engine: UD datagrams, responses to the completer, requests to
// the responder; then the requester may send what the exchange allows.
void Device::deliver(QueuePair& qp, const wire::RocePacket& p, uint64_t now_ns) {
  QpContext ctx = context(qp, now_ns);
  // An Ext QP takes TVer 1 packets only (section 19.1), a base QP TVer 0 only (MR-WF-03,
  // which the accept-tver-nonzero mutant breaks).
  const bool wrong_version = qp.ext ? !p.bth.is_ext() && decide_.extension.drops_base_packets
                                    : p.bth.version != 0 && decide_.receive.checks_bth_version;
  if (wrong_version || (qp.ext && refuses_mxh(p))) {  // MR-EX-07 on an Ext QP
    ++counters_.dropped_tver;
    return;
  }
  if (qp.ext) {
    if (p.bth.opcode == wire::kOpExtProbe) {
      respond_ext_probe(qp, p, ctx);
    } else if (p.bth.opcode == wire::kOpExtResync) {
      respond_ext_resync(qp, p, ctx);
    } else if (p.bth.opcode == wire::kOpExtCredit) {
      receive_ext_credit(qp, p, ctx);
      // The ext-credit-packet-answered mutant answers it with a CREDIT packet of its own.
      if (!decide_.extension.leaves_credit_unanswered) send_ext_credit(qp, ctx);
    } else if (opcode_of(p)->is(wire::kResponse)) {
      complete_ext_response(qp, p, ctx);
    } else {
      respond_ext(qp, p, ctx);
    }
    run_ext_requester(qp, ctx);
    note_activity(qp);
    return;
  }
  if (qp.init.type == QpType::kUd) {
    receive_datagram(qp, p, ctx);
    return;
  }
  if (wire::opcode_info(p.bth.opcode)->is(wire::kResponse)) {
    complete_response(qp, p, ctx);
  } else {
    const QpState before = qp.attr.state;
    if (before == QpState::kError) qp.attr.state = QpState::kRts;  // the error-still-answers mutant
    respond(qp, p, ctx);
    if (before == QpState::kError) qp.attr.state = QpState::kError;
  }
  run_requester(qp, ctx);
  note_activity(qp);
}

// MR-CC-09, MR-CC-13: a CNP acts whatever its UDP source port, DSCP and ECN, if its ICRC is
// right (checked before) and its DestQP names one of the device's RC QPs.
void Device::receive_cnp(const wire::RocePacket& p, uint64_t now_ns) {
  ++counters_.cnp_received;
  if (!config_.cnp_reaction_point) return;
  if (!decide_.congestion.reaction_point_any_source_port && p.udp.sport < 49152) return;
  auto it = qps_.find(p.bth.dqpn);
  if (p.bth.dqpn == 0 || it == qps_.end() || it->second->init.type != QpType::kRc) return;
  QueuePair& qp = *it->second;
  if (qp.ext && qp.ext->cc) return;  // section 26.6: its window reacts to ECN, not DCQCN
  if (!qp.rp) qp.rp.emplace(config_.dcqcn);
  qp.rp->on_cnp(now_ns, decide_.congestion);
}

void Device::notify_congestion(QueuePair& qp, uint64_t now_ns) {
  if (!config_.cnp_notification_point) return;
  // Section 26.6: with CC the SACKETH carries the ECN feedback; no CNP (MR-SC-09), but from
  // the ext-cc-sends-cnp mutant.
  if (qp.ext && qp.ext->cc && decide_.extension.cc_suppresses_cnp) return;
  const bool limited = decide_.congestion.cnp_rate_limited;
  if (limited && qp.last_cnp_ns && now_ns - *qp.last_cnp_ns < config_.cnp_min_interval_ns)
    return;  // MR-CC-03
  qp.last_cnp_ns = now_ns;
  wire::RocePacket cnp = factory_.start(qp, wire::kOpCnp, 0);
  cnp.bth.becn = decide_.congestion.cnp_sets_becn ? 1 : 0;  // MR-CC-01
  cnp.cnp_padding = wire::CnpPadding{};
  if (auto* v4 = std::get_if<wire::Ipv4>(&cnp.ip)) v4->tos = 48 << 2;  // V_CNP_DSCP
  if (auto* v6 = std::get_if<wire::Ipv6>(&cnp.ip)) v6->tc = 48 << 2;
  outbox_.push(factory_.finish(cnp), base_plane(qp.qpn));
  ++counters_.cnp_sent;
  ++counters_.sent_pkts;
}

void Device::note_activity(const QueuePair& qp) {
  const bool unsent = qp.attr.state == QpState::kRts && qp.send_index < qp.sq.size();
  // Ext: a PSN in flight or a READ's missing response may time out, so the QP stays active;
  // checked in O(1) here, as this runs for every packet (the exact deadline walks the PSNs in
  // flight: next_deadline()).
  // ASSUMED_BAD entries are probed (PATHPROBE) or end their hold-down on a timer (25.1).
  const bool ext_sending =
      qp.ext && qp.attr.state == QpState::kRts &&
      (!qp.ext->rnr_waits.empty() || !qp.ext->reads.empty() || qp.ext->evs.any_assumed_bad() ||
       qp.ext->sent.next_psn() != wire::psn_add(qp.ext->sent.cumulative(), 1));
  const bool ext_work =
      qp.ext && (!qp.ext->retransmit.empty() || ext_sending || ext_responder_deadline(qp));
  if (unsent || ext_work || qp.retransmit_deadline_ns || qp.rnr_resume_ns) {
    active_.insert(qp.qpn);
  } else {
    active_.erase(qp.qpn);
  }
}

void Device::advance(uint64_t now_ns) {
  // On a real clock the caller can wake late: the timers that fell due meanwhile run at
  // their own times and in their order, as a punctual device's would (credit grants paced
  // 1.4 us apart leave before an ACK owed 20 us after the request, not after it). Bounded: a
  // wake-up late by more than kCatchUpSteps timers runs the rest at once.
  constexpr int kCatchUpSteps = 64;
  for (int step = 0; step < kCatchUpSteps; ++step) {
    // Only deadlines strictly between the last step and now: one already passed and still
    // pending (work waiting on something else) is not one to catch up to, nor does it hide
    // the later ones.
    const std::optional<uint64_t> due = next_deadline_after(now_ns_);
    if (!due || *due >= now_ns) break;
    advance_at(*due);
  }
  advance_at(now_ns);
}

void Device::advance_at(uint64_t now_ns) {
  now_ns_ = std::max(now_ns_, now_ns);
  run_credit(now_ns);
  const std::vector<uint32_t> visit(active_.begin(), active_.end());
  for (uint32_t qpn : visit) {
    auto it = qps_.find(qpn);
    if (it == qps_.end()) {
      active_.erase(qpn);
      continue;
    }
    QueuePair& qp = *it->second;
    QpContext ctx = context(qp, now_ns);
    if (qp.ext) {
      advance_ext(qp, ctx);
      continue;
    }
    if (qp.retransmit_deadline_ns && now_ns >= *qp.retransmit_deadline_ns)
      on_retransmit_timeout(qp, ctx);
    if (qp.rnr_resume_ns && now_ns >= *qp.rnr_resume_ns) qp.rnr_resume_ns.reset();
    run_requester(qp, ctx);
    note_activity(qp);
  }
}

// An Ext QP's timers (RTO, probe, the owed ACK), then what its window lets it send.
void Device::advance_ext(QueuePair& qp, QpContext& ctx) {
  if (auto due = ext_requester_deadline(qp); due && ctx.now_ns >= *due) run_ext_timers(qp, ctx);
  flush_ext_ack(qp, ctx);
  run_ext_requester(qp, ctx);
  note_activity(qp);
}

void Device::run_credit(uint64_t now_ns) {
  if (credit_qpns_.empty() || !credit_scheduler_) return;
  // A QP that is gone, left Ext mode or is in Error grants nothing more (and is dropped).
  const auto receiver = [this](uint32_t qpn) -> ext::CreditReceiver* {
    auto it = qps_.find(qpn);
    if (it == qps_.end() || !grants_credit(*it->second)) return nullptr;
    return &*it->second->ext->credit_rx;
  };
  std::erase_if(credit_qpns_, [&](uint32_t qpn) { return receiver(qpn) == nullptr; });
  const ext::CreditParameters& p = credit_scheduler_->parameters();
  for (uint32_t qpn : credit_qpns_) receiver(qpn)->expire(now_ns, p.timeout_ns);  // MR-CR-14
  const std::optional<size_t> raised = credit_scheduler_->tick(
      credit_qpns_.size(), [&](size_t i) { return receiver(credit_qpns_[i]); }, now_ns);
  if (!raised) return;
  ++counters_.ext_credit_raises;
  QueuePair& qp = *qps_.find(credit_qpns_[*raised])->second;
  QpContext ctx = context(qp, now_ns);
  // MR-CR-13: an ACK owed within T_CR_GRANT_DELAY carries the raise; else a CREDIT packet.
  const std::optional<uint64_t> owed = ext_responder_deadline(qp);
  // The ext-credit-waits-for-ack mutant leaves every raise to the next ACK.
  if ((!owed || *owed > now_ns + p.grant_delay_ns) && decide_.extension.sends_credit_packets)
    send_ext_credit(qp, ctx);
  note_activity(qp);
}

std::optional<uint64_t> Device::credit_deadline(std::optional<uint64_t> after) const {
  std::optional<uint64_t> next;
  const auto earliest = [&next, after](uint64_t t) {
    if (after && t <= *after) return;
    next = next ? std::min(*next, t) : t;
  };
  if (!credit_scheduler_) return next;  // no QP has been in credit mode
  const ext::CreditParameters& p = credit_scheduler_->parameters();
  for (uint32_t qpn : credit_qpns_) {
    auto it = qps_.find(qpn);
    if (it == qps_.end() || !grants_credit(*it->second)) continue;
    const ext::CreditReceiver& r = *it->second->ext->credit_rx;
    if (auto expiry = r.expiry_ns(p.timeout_ns)) earliest(*expiry);
    if (credit_scheduler_->wants_raise(r))
      earliest(credit_scheduler_->next_raise_ns().value_or(now_ns_));
  }
  return next;
}

std::optional<uint64_t> Device::next_deadline() const { return next_deadline_after(std::nullopt); }

std::optional<uint64_t> Device::next_deadline_after(std::optional<uint64_t> after) const {
  std::optional<uint64_t> next = credit_deadline(after);
  for (uint32_t qpn : active_) {
    auto it = qps_.find(qpn);
    if (it == qps_.end()) continue;
    const QueuePair& qp = *it->second;
    // A paced QP with unsent work: advance() has to run when its next packet may leave.
    std::optional<uint64_t> pacer;
    if (qp.rp && qp.attr.state == QpState::kRts && qp.send_index < qp.sq.size() &&
        qp.rp->next_send_ns() > now_ns_) {
      pacer = qp.rp->next_send_ns();
    }
    for (const auto& d : {qp.retransmit_deadline_ns, qp.rnr_resume_ns, pacer,
                          ext_requester_deadline(qp), ext_responder_deadline(qp)}) {
      if (d && (!after || *d > *after) && (!next || *d < *next)) next = d;
    }
  }
  return next;
}

bool Device::ready_to_send(const QueuePair& qp, uint64_t now_ns) {
  return qp.attr.state == QpState::kRts && qp.send_index < qp.sq.size() &&
         (!qp.rp || qp.rp->next_send_ns() <= now_ns);
}

bool Device::has_work() const {
  return std::any_of(active_.begin(), active_.end(), [this](uint32_t qpn) {
    auto it = qps_.find(qpn);
    return it != qps_.end() && ready_to_send(*it->second, now_ns_);
  });
}

std::vector<std::vector<uint8_t>> Device::take_outbox() {
  std::vector<uint8_t> planes;
  return take_outbox(planes);
}

std::vector<std::vector<uint8_t>> Device::take_outbox(std::vector<uint8_t>& planes) {
  planes = std::exchange(outbox_.planes, {});
  return std::exchange(outbox_.frames, {});
}

void Device::recycle(std::vector<std::vector<uint8_t>>& frames) {
  for (auto& f : frames) {
    if (outbox_.spare.size() >= Outbox::kMaxSpare) break;
    outbox_.spare.push_back(std::move(f));
  }
  frames.clear();
  // The list itself too, when the outbox has none: the next take_outbox() hands it back.
  if (outbox_.frames.empty() && outbox_.frames.capacity() < frames.capacity()) {
    std::swap(outbox_.frames, frames);
  }
}

void Device::set_plane_port(uint8_t plane, bool up, uint64_t now_ns) {
  if (plane >= config_.planes || plane_down_[plane] == !up) return;
  plane_down_[plane] = !up;
  now_ns_ = std::max(now_ns_, now_ns);
  qps_.for_each([&](QueuePair& qp) {
    if (!qp.ext) return;
    // The ext-port-up-no-hold mutant uses the plane again at once (MR-PF-16); the
    // ext-port-down-ignored one keeps using it while it is down (MR-PF-07).
    if (up) {
      qp.ext->evs.port_up(plane, now_ns, decide_.extension.holds_port_after_up);
    } else if (decide_.extension.port_down_stops_evs) {
      qp.ext->evs.port_down(plane, now_ns);
    }
  });
}

Expected<ext::EvState, VerbsError> Device::set_ev_allowed(uint32_t qpn, uint16_t ev, bool allowed) {
  auto it = qps_.find(qpn);
  if (it == qps_.end()) return verbs_error("unknown qp " + std::to_string(qpn));
  QueuePair& qp = *it->second;
  if (!qp.ext)
    return verbs_error("qp " + std::to_string(qpn) + " is in base mode: it sends on no EV set");
  ext::EvTable& evs = qp.ext->evs;
  const std::optional<size_t> i = evs.find(ev);
  if (!i)
    return verbs_error("ev: " + std::to_string(ev) + " is not in the EV set of qp " +
                       std::to_string(qpn));
  if (allowed) {
    evs.allow(*i);
  } else {  // the ext-denied-ev-used mutant records DENIED and draws the entry all the same
    evs.deny(*i, decide_.extension.denied_ev_unused);
  }
  note_activity(qp);  // work that waited for a usable entry may go now
  return evs.state(*i);
}

}  // namespace mr::transport
