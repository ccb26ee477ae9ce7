#include "harness/engine/dut_commands.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "harness/engine/command_args.h"
#include "harness/engine/congestion_commands.h"
#include "harness/engine/evaluate.h"
#include "harness/engine/memory_commands.h"
#include "harness/engine/path_commands.h"
#include "harness/engine/secure_commands.h"
#include "harness/engine/secure_session.h"
#include "harness/protocol/protocol_limits.h"
#include "reference/wire/mxcap.h"
#include "reference/wire/psn.h"

namespace mr::engine {
namespace {

using nlohmann::json;
using protocol::QpAttrs;
using script::Command;

constexpr uint64_t kDefaultMrLength = 1 << 20;
constexpr uint64_t kDutVaBase = 0x10000000;
// UD Q_Keys unless the script gives them (qkey=, tqkey=); bit 31 clear: not controlled.
constexpr uint64_t kDefaultDutQkey = 0x11223344;
constexpr uint64_t kDefaultTesterQkey = 0x55667788;

// A waiting request (waiting_op.h) whose wait the protocol bounds: a longer PIXIT wait is a
// series of requests (`request(chunk_ms)`), ending at the first reply that shows what the
// script waits for (`satisfied`), or when wait_ms has passed.
template <class Request, class Satisfied>
auto wait_in_chunks(TestContext& ctx, const script::Position& pos, uint64_t wait_ms,
                    Request request, Satisfied satisfied) {
  for (uint64_t waited = 0;;) {
    const uint64_t chunk = std::min<uint64_t>(wait_ms - waited, protocol::kMaxPollTimeoutMs);
    auto reply = checked(ctx, pos, request(chunk));
    waited += chunk;
    if (!reply || satisfied(*reply) || waited >= wait_ms) return reply;
  }
}

// The remote rights a script names: ALL, NONE, or any of WRITE, READ, ATOMIC joined (e.g.
// READ_WRITE), as the control protocol's access names.
std::vector<std::string> remote_rights(const std::string& names) {
  std::vector<std::string> out;
  const bool all = names == "ALL";
  if (all || names.find("WRITE") != std::string::npos) out.emplace_back("REMOTE_WRITE");
  if (all || names.find("READ") != std::string::npos) out.emplace_back("REMOTE_READ");
  if (all || names.find("ATOMIC") != std::string::npos) out.emplace_back("REMOTE_ATOMIC");
  return out;
}

// The modify_qp steps of a UC or UD QP, from those of an RC QP: UC drops the RC-only
// attributes (READ/ATOMIC resources, timers), UD has no peer at all but a Q_Key (IBTA
// 10.3.1; ibv_modify_qp's required attributes per QP type).
std::vector<QpAttrs> unreliable_steps(const std::string& type, const std::vector<QpAttrs>& rc,
                                      uint64_t qkey, uint64_t sq_psn) {
  const QpAttrs rts{.state = "RTS", .sq_psn = sq_psn};
  if (type == "UD") {
    return {{.state = "INIT", .pkey = rc[0].pkey, .qkey = qkey},
            {.state = "RTR", .path_mtu = rc[1].path_mtu},
            rts};
  }
  QpAttrs rtr = rc[1];
  rtr.max_dest_rd_atomic.reset();
  rtr.min_rnr_timer.reset();
  return {rc[0], rtr, rts};
}

}  // namespace

QpBinding* named_dut_qp(const Command& c, TestContext& ctx) {
  const std::string name = c.target.empty() ? ctx.current_qp : c.target;
  auto it = ctx.qps.find(name);
  if (it == ctx.qps.end()) {
    ctx.error(c.pos, "dut " + c.name + ": no QP named '" + name + "' (create it with dut qp " +
                         name + " = create_qp(...))");
    return nullptr;
  }
  return &it->second;
}

namespace {

// How the DUT's QP reaches the tester: address family, VLAN tag, traffic class, hop limit.
struct ConnectionPath {
  bool ipv6 = false;
  std::optional<uint16_t> vlan;
  uint8_t pcp = 0;
  uint8_t traffic_class = 0;
  uint8_t hop_limit = 64;
};

std::optional<ConnectionPath> connection_path(Args& a, TestContext& ctx) {
  ConnectionPath p;
  p.ipv6 = a.number("ipv6", 0) != 0;
  const uint64_t vlan = a.number("vlan", 0);
  const uint64_t pcp = a.number("pcp", 0);
  const uint64_t tclass = a.number("tclass", 0);
  const uint64_t hop_limit = a.number("hop_limit", 64);
  if (ctx.aborted) return std::nullopt;
  if (p.ipv6 && !(ctx.pixit.tester_ip6 && ctx.pixit.dut_ip6)) {
    ctx.error(a.pos("ipv6"), "create_qp ipv6=1: the PIXIT has no tester.ipv6 and dut.ipv6");
    return std::nullopt;
  }
  if (a.has("vlan") && (vlan == 0 || vlan > 4094)) {
    ctx.error(a.pos("vlan"), "create_qp vlan: a VLAN ID is 1..4094");
    return std::nullopt;
  }
  if (pcp > 7 || tclass > 0xff || hop_limit > 0xff) {
    ctx.error(a.pos(pcp > 7         ? "pcp"
                    : tclass > 0xff ? "tclass"
                                    : "hop_limit"),
              "create_qp: pcp is 0..7, tclass and hop_limit 0..255");
    return std::nullopt;
  }
  if (a.has("vlan")) p.vlan = static_cast<uint16_t>(vlan);
  p.pcp = static_cast<uint8_t>(pcp);
  p.traffic_class = static_cast<uint8_t>(tclass);
  p.hop_limit = static_cast<uint8_t>(hop_limit);
  return p;
}

// The address vector that points the DUT's QP at the tester (modify_qp to RTR).
protocol::AddressVector address_vector(const ConnectionPath& path, const TestContext& ctx,
                                       uint32_t udp_sport) {
  protocol::AddressVector av{
      .dip = path.ipv6 ? ctx.pixit.tester_ip6->to_string() : ctx.pixit.tester_ip.to_string(),
      .dmac = ctx.pixit.tester_mac.to_string(),
      .sip = path.ipv6 ? ctx.pixit.dut_ip6->to_string() : ctx.pixit.dut_ip.to_string(),
      .udp_sport = udp_sport};
  // Only what the script set: a DUT without VLAN support still takes a plain vector.
  if (path.traffic_class != 0) av.traffic_class = path.traffic_class;
  if (path.hop_limit != 64) av.hop_limit = path.hop_limit;
  if (path.vlan) {
    av.vlan_id = *path.vlan;
    av.vlan_prio = path.pcp;
  }
  return av;
}

// The PD and memory region of a new QP: X's with share=X (two QPs on the same memory:
// MR-AT-07), otherwise its own. False once an error has ended the test.
bool bind_memory(const Command& c, TestContext& ctx, Args& a, QpBinding& b, uint32_t index,
                 uint64_t mr_len) {
  const std::string share = a.name("share", "");
  if (!share.empty()) {
    auto it = ctx.qps.find(share);
    if (it == ctx.qps.end()) {
      ctx.error(a.pos("share"), "create_qp share: no QP named '" + share + "'");
      return false;
    }
    b.pd = it->second.pd;
    b.lkey = it->second.lkey;
    b.rkey = it->second.rkey;
    b.va = it->second.va;
    b.mr_length = it->second.mr_length;
    return true;
  }
  protocol::DutClient dut = dut_client(ctx);
  auto pd = checked(ctx, c.pos, dut.create_pd());
  if (!pd) return false;
  b.pd = *pd;
  // mr_access=...: the region's remote rights (default all), apart from the QP's (access=).
  std::vector<std::string> rights = remote_rights(a.name("mr_access", "ALL"));
  rights.emplace_back("LOCAL_WRITE");
  auto mr = checked(ctx, c.pos,
                    dut.reg_mr({.pd = b.pd,
                                .length = mr_len,
                                .access = std::move(rights),
                                .va = kDutVaBase + uint64_t{index} * 0x1000000}));
  if (!mr) return false;
  b.lkey = mr->lkey;
  b.rkey = mr->rkey;
  b.va = mr->va;
  b.mr_length = mr_len;
  return true;
}

// The MXCAP block the tester offers the DUT at INIT to RTR (spec section 18): `mxcap=b"..."`
// as written (a broken block on purpose), `ext=1` the tester's own (SACK and OOO, the core
// of Ext) with the optional features the script names (`multipath=1 trim=1 ...`),
// neither no block: a base-mode QP. Empty with an error reported when invalid.
struct OfferedMxcap {
  std::vector<uint8_t> bytes;  // empty: none offered
  bool enables_ext = false;    // whether the block, with the DUT's, puts the QP in Ext mode
};

// The optional features a script may add to `ext=1`, by the create_qp key that asks for them.
struct OptionalFeature {
  std::string_view key;
  uint8_t features;   // MXCAP byte 5
  uint8_t features2;  // MXCAP byte 9
};
constexpr std::array kOptionalFeatures{
    OptionalFeature{"multipath", wire::kMxcapMultipath, 0},
    OptionalFeature{"trim", wire::kMxcapTrim, 0},
    OptionalFeature{"pathprobe", wire::kMxcapPathProbe, 0},
    OptionalFeature{"adaptive", wire::kMxcapAdaptive, 0},
    OptionalFeature{"cc", wire::kMxcapCc, 0},
    OptionalFeature{"credit", wire::kMxcapCredit, 0},
    OptionalFeature{"nonfatal", 0, wire::kMxcapNonFatal},
    OptionalFeature{"resync", 0, wire::kMxcapResync},
    OptionalFeature{"secure", 0, wire::kMxcapSecure},
};

std::optional<OfferedMxcap> offered_mxcap(Args& a, TestContext& ctx, const std::string& type) {
  for (const OptionalFeature& f : kOptionalFeatures) {
    if (a.has(std::string(f.key)) && a.number("ext", 0) == 0) {
      ctx.error(a.pos(std::string(f.key)),
                "create_qp: " + std::string(f.key) + "=1 is an extension feature; it needs ext=1");
      return std::nullopt;
    }
  }
  // An EV set is given with any Part II offer (mxcap= too: a block without MULTIPATH still
  // sends on the set's first entry, MR-MU-09).
  if ((a.has("ev_set") || a.has("ev_planes")) && !a.has("ext") && !a.has("mxcap")) {
    ctx.error(a.pos(a.has("ev_set") ? "ev_set" : "ev_planes"),
              "create_qp: an EV set is for extension mode; it needs ext=1 (or mxcap=)");
    return std::nullopt;
  }
  if (a.has("mpr") && a.number("ext", 0) == 0) {
    ctx.error(a.pos("mpr"),
              "create_qp: mpr= is the window of the tester's ext=1 block; it needs "
              "ext=1 (an mxcap= block carries its own)");
    return std::nullopt;
  }
  if (!a.has("ext") && !a.has("mxcap")) return OfferedMxcap{};
  if (type != "RC") {
    ctx.error(a.pos(a.has("ext") ? "ext" : "mxcap"), "create_qp: extension mode is for RC QPs");
    return std::nullopt;
  }
  if (a.has("mxcap")) {
    if (a.has("ext")) {
      ctx.error(a.pos("mxcap"), "create_qp: give ext=1 or mxcap=b\"...\", not both");
      return std::nullopt;
    }
    OfferedMxcap m{a.bytes("mxcap")};
    if (m.bytes.size() != wire::Mxcap::kSize) {
      ctx.error(a.pos("mxcap"), "create_qp mxcap: an MXCAP block is 16 bytes, got " +
                                    std::to_string(m.bytes.size()));
      return std::nullopt;
    }
    const auto block = wire::Mxcap::parse(m.bytes);
    m.enables_ext = block && block->enables_ext();
    return m;
  }
  if (a.number("ext", 0) == 0) return OfferedMxcap{};
  wire::Mxcap block;
  // The tester's window (MR-SA-07): MPR x 128 PSNs, 1 to 255; 8 unless the line says.
  if (a.has("mpr")) {
    const uint64_t mpr = a.number("mpr", 8);
    if (mpr == 0 || mpr > 255) {
      ctx.error(a.pos("mpr"), "create_qp mpr: the tester's window is 1 to 255 units of 128 PSNs");
      return std::nullopt;
    }
    block.mpr = static_cast<uint8_t>(mpr);
  }
  for (const OptionalFeature& f : kOptionalFeatures) {
    if (a.number(std::string(f.key), 0) == 0) continue;
    block.features = block.features | f.features;
    block.features2 = block.features2 | f.features2;
  }
  return OfferedMxcap{block.bytes(), true};
}

// `ev_set=[E, ...]` with `ev_planes=[P, ...]` (default: all on plane 0): the EV set the DUT's
// QP is given at INIT to RTR (spec section 20.1); none without ev_set (the device's default).
// The parser has bounded each value; the device judges the set (EINVAL names the entry).
std::optional<std::vector<protocol::EvEntry>> given_ev_set(Args& a, TestContext& ctx) {
  if (a.has("ev_planes") && !a.has("ev_set")) {
    ctx.error(a.pos("ev_planes"), "create_qp: ev_planes= gives the planes of ev_set='s entries");
    return std::nullopt;
  }
  if (!a.has("ev_set")) return std::nullopt;
  const std::vector<uint64_t> evs = a.numbers("ev_set");
  std::vector<uint64_t> planes = a.numbers("ev_planes");
  if (!a.has("ev_planes")) planes.assign(evs.size(), 0);
  if (planes.size() != evs.size()) {
    ctx.error(a.pos("ev_planes"), "create_qp: ev_planes= has " + std::to_string(planes.size()) +
                                      " planes for " + std::to_string(evs.size()) + " EVs");
    return std::nullopt;
  }
  std::vector<protocol::EvEntry> set;
  for (size_t i = 0; i < evs.size(); ++i) set.push_back({.ev = evs[i], .plane = planes[i]});
  return set;
}

// Section 19.4: the keys the DUT's QP gets at INIT to RTR, with `secure=1` unless
// `secure_keys=0` (and with `secure_keys=1` alone: keys for a QP that does not agree SECURE).
// The DUT receives with the tester's transmit SA and sends with the tester's receive SA.
std::optional<protocol::SecureSa> given_secure_sa(Args& a) {
  if (a.number("secure_keys", a.number("secure", 0)) == 0) return std::nullopt;
  protocol::SecureSa keys = SecureSession::dut_keys(1);
  if (a.has("secure_rekey")) keys.rekey_packets = a.number("secure_rekey", 0);
  return keys;
}

// The modify_qp steps that take an RC QP from RESET to RTS, connected to the tester.
std::vector<QpAttrs> rc_steps(Args& a, TestContext& ctx, const ConnectionPath& path,
                              const QpBinding& b, uint32_t tester_qpn, uint64_t rq_psn,
                              uint64_t sq_psn, const std::string& access,
                              const OfferedMxcap& mxcap) {
  std::optional<std::string> peer_mxcap;
  if (!mxcap.bytes.empty()) peer_mxcap = protocol::to_hex(mxcap.bytes);
  auto ev_set = given_ev_set(a, ctx);
  return {
      {.state = "INIT", .access_flags = remote_rights(access), .pkey = a.number("pkey", 0xffff)},
      {.state = "RTR",
       .path_mtu = a.number("mtu", 1024),
       .dest_qpn = tester_qpn,
       .rq_psn = rq_psn,
       .min_rnr_timer = a.number("min_rnr_timer", 12),
       .max_dest_rd_atomic = a.number("max_dest_rd_atomic", 16),
       .av = address_vector(path, ctx, 0xc000 | (b.dut_qpn & 0x3fff)),
       .peer_mxcap = peer_mxcap,
       .ev_set = std::move(ev_set),
       .secure_sa = given_secure_sa(a)},
      {.state = "RTS",
       .sq_psn = sq_psn,
       .timeout = a.number("timeout", 14),
       .retry_cnt = a.number("retry_cnt", 7),
       .rnr_retry = a.number("rnr_retry", 7),
       .max_rd_atomic = a.number("max_rd_atomic", 16)},
  };
}

// The QP's values by name for the rest of the script; the first QP's also by P, Q and T.
void bind_symbols(TestContext& ctx, const std::string& name, const QpBinding& b, uint64_t qkey,
                  uint64_t tester_qkey, uint64_t rq_psn, uint64_t sq_psn) {
  const uint32_t tester_qpn = b.connection.tester_qpn;
  ctx.symbols.set(name + ".qkey", qkey);
  ctx.symbols.set(name + ".tqkey", tester_qkey);
  ctx.symbols.set(name + ".qpn", b.dut_qpn);
  ctx.symbols.set(name + ".rkey", b.rkey);
  ctx.symbols.set(name + ".lkey", b.lkey);
  ctx.symbols.set(name + ".va", b.va);
  ctx.symbols.set(name + ".len", b.mr_length);
  ctx.symbols.set(name + ".tqpn", tester_qpn);
  if (ctx.qps.empty()) {
    ctx.symbols.set("P", rq_psn);
    ctx.symbols.set("Q", sq_psn);
    ctx.symbols.set("T", tester_qpn);
    ctx.current_qp = name;
  }
  ctx.symbols.set(name + ".P", rq_psn);
  ctx.symbols.set(name + ".Q", sq_psn);
}

void create_qp(const Command& c, TestContext& ctx) {
  Args a(c, ctx);
  if (ctx.aborted) return;
  auto path = connection_path(a, ctx);
  if (!path) return;
  const std::string type = a.name("type", "RC");
  if (type != "RC" && type != "UC" && type != "UD")
    return ctx.error(a.pos("type"), "create_qp: type must be RC, UC or UD");
  const uint32_t index = static_cast<uint32_t>(ctx.qps.size());
  QpBinding b;
  // Reproducible, seeded starting PSNs unless the script fixes them.
  const uint64_t mix = (ctx.seed + index + 1) * 0x9e3779b97f4a7c15ULL;
  const uint64_t rq_psn = a.number("rq_psn", (mix >> 20) & wire::kPsnMask);
  const uint64_t sq_psn = a.number("sq_psn", (mix >> 44) & wire::kPsnMask);
  const uint64_t mr_len = a.number("mr_len", kDefaultMrLength);
  const std::string access = a.name("access", "ALL");
  const auto mxcap = offered_mxcap(a, ctx, type);
  if (!mxcap) return;
  if (ctx.aborted || !bind_memory(c, ctx, a, b, index, mr_len)) return;
  protocol::DutClient dut = dut_client(ctx);
  auto cq = checked(ctx, c.pos, dut.create_cq(a.number("cq_depth", 4096)));
  if (!cq) return;
  b.cq = *cq;
  auto qp = checked(ctx, c.pos,
                    dut.create_qp({.pd = b.pd,
                                   .send_cq = b.cq,
                                   .recv_cq = b.cq,
                                   .type = type,
                                   .max_send_wr = 1024,
                                   .max_recv_wr = 1024}));
  if (!qp) return;
  b.dut_qpn = *qp;
  const uint32_t tester_qpn = ctx.pixit.tester_qpn_base + index;
  const uint16_t sport = static_cast<uint16_t>(0xc000 | (tester_qpn & 0x3fff));
  const auto rc = rc_steps(a, ctx, *path, b, tester_qpn, rq_psn, sq_psn, access, *mxcap);
  const uint64_t qkey = a.number("qkey", kDefaultDutQkey);
  const uint64_t tester_qkey = a.number("tqkey", kDefaultTesterQkey);
  if (qkey > 0xffffffff || tester_qkey > 0xffffffff)
    return ctx.error(a.pos("qkey"), "create_qp: a Q_Key is 32-bit");
  std::vector<QpAttrs> steps = type == "RC" ? rc : unreliable_steps(type, rc, qkey, sq_psn);
  // state=RTR stops one step short: a QP that receives but may not send yet (MR-QS-03).
  const std::string final_state = a.name("state", "RTS");
  if (final_state != "RTS" && final_state != "RTR")
    return ctx.error(a.pos("state"), "create_qp: state must be RTR or RTS");
  if (final_state == "RTR") steps.pop_back();
  // MR-SE-01: offered SECURE without keys, the DUT must refuse RTR; the QP stays in INIT.
  const bool refuse_rtr =
      type == "RC" && a.number("secure", 0) == 1 && a.number("secure_keys", 1) == 0;
  for (const auto& attrs : steps) {
    if (ctx.aborted) return;
    if (refuse_rtr && attrs.state == "RTR") {
      if (dut.modify_qp(b.dut_qpn, attrs)) {
        ctx.fail(a.pos("secure_keys"), "modify_qp RTR",
                 "refused: both MXCAPs carry SECURE and the QP has no security associations",
                 "accepted", "MR-SE-01: the DUT fell back to an unprotected QP");
      }
      break;
    }
    if (!checked(ctx, c.pos, dut.modify_qp(b.dut_qpn, attrs))) return;
  }
  b.connection = ConnectionDefaults{ctx.pixit.tester_mac,
                                    ctx.pixit.dut_mac,
                                    ctx.pixit.tester_ip,
                                    ctx.pixit.dut_ip,
                                    sport,
                                    b.dut_qpn,
                                    tester_qpn,
                                    0xffff};
  if (type == "UD") b.connection.qkey = static_cast<uint32_t>(qkey);
  if (path->ipv6) {
    b.connection.tester_ip6 = ctx.pixit.tester_ip6;
    b.connection.dut_ip6 = ctx.pixit.dut_ip6;
  }
  b.connection.vlan = path->vlan;
  b.connection.pcp = path->pcp;
  b.connection.ext = mxcap->enables_ext;
  if (mxcap->enables_ext) {
    if (auto block = wire::Mxcap::parse(mxcap->bytes)) b.tester_mxcap = *block;
  }
  if (b.connection.ext && a.number("secure", 0) == 1 && !refuse_rtr)
    b.connection.secure = std::make_shared<SecureSession>();
  if (b.connection.ext && ctx.judges_ev_sets) {
    // N_EV_DEFAULT is the DUT's setting (PIXIT), 1 to 4,096 (section 30).
    const double count = std::clamp(ctx.pixit.parameter("N_EV_DEFAULT", 16), 1.0, 4096.0);
    b.ev_set = default_ev_set(b.dut_qpn, static_cast<uint32_t>(count));
    if (a.has("ev_set"))
      b.ev_set = {rc.at(1).ev_set.value_or(std::vector<protocol::EvEntry>{}), true};
  }
  b.type = type;
  b.mtu = static_cast<uint32_t>(a.number("mtu", 1024));
  b.tester_qkey = static_cast<uint32_t>(tester_qkey);
  bind_symbols(ctx, c.assign, b, qkey, tester_qkey, rq_psn, sq_psn);
  ctx.qps[c.assign] = b;
}

void post_recv(const Command& c, TestContext& ctx) {
  Args a(c, ctx);
  QpBinding* qp = named_dut_qp(c, ctx);
  if (!qp || ctx.aborted) return;
  const uint64_t count = a.number("count", 1);
  const uint64_t len = a.number("len", 4096);
  const uint64_t offset = a.number("offset", 0);
  const uint64_t wr_id = a.number("wr_id", 0);
  if (count > 4096) return ctx.error(a.pos("count"), "post_recv: count above 4096");
  if (offset + count * len > qp->mr_length)
    return ctx.error(c.pos, "post_recv: buffers end past the memory region");
  protocol::DutClient dut = dut_client(ctx);
  for (uint64_t i = 0; i < count && !ctx.aborted; ++i) {
    const protocol::Sge sge{.addr = qp->va + offset + i * len, .length = len, .lkey = qp->lkey};
    checked(ctx, c.pos, dut.post_recv(qp->dut_qpn, {.wr_id = wr_id + i, .sg_list = {sge}}));
  }
}

// dut post_send [QP] opcode=... len=N [count=K stride=S]: K work requests, the i-th at
// offset + i*S locally and remote_addr + i*S remotely (S defaults to len), wr_id + i.
void post_send(const Command& c, TestContext& ctx) {
  Args a(c, ctx);
  QpBinding* qp = named_dut_qp(c, ctx);
  if (!qp || ctx.aborted) return;
  if (qp->type != "UD" && (a.has("dest_qpn") || a.has("qkey")))
    return ctx.error(c.pos, "post_send: dest_qpn= and qkey= are for UD QPs only");
  const uint64_t len = a.number("len", 0);
  const uint64_t offset = a.number("offset", 0);
  const uint64_t remote_addr = a.number("remote_addr", 0);
  const uint64_t count = a.number("count", 1);
  const uint64_t stride = a.number("stride", len);
  const uint64_t wr_id = a.number("wr_id", 1);
  if (ctx.aborted) return;
  if (count == 0 || count > 4096) return ctx.error(a.pos("count"), "post_send: count is 1..4096");
  protocol::SendWr wr{.opcode = a.name("opcode", "SEND"),
                      .signaled = a.number("signaled", 1) != 0,
                      .solicited = a.number("solicited", 0) != 0,
                      .imm_data = a.number("imm", 0),
                      .invalidate_rkey = a.number("invalidate_rkey", 0),
                      .rkey = a.number("rkey", 0),
                      .compare_add = a.number("compare_add", 0),
                      .swap = a.number("swap", 0)};
  if (qp->type == "UD") {
    // The work request's address handle: to the tester, from the QP's own UDP source port.
    wr.ud = protocol::UdDestination{.ah = {.dip = ctx.pixit.tester_ip.to_string(),
                                           .dmac = ctx.pixit.tester_mac.to_string(),
                                           .sip = ctx.pixit.dut_ip.to_string(),
                                           .udp_sport = 0xc000 | (qp->dut_qpn & 0x3fff)},
                                    .remote_qpn = a.number("dest_qpn", qp->connection.tester_qpn),
                                    .remote_qkey = a.number("qkey", qp->tester_qkey)};
  }
  protocol::DutClient dut = dut_client(ctx);
  for (uint64_t i = 0; i < count && !ctx.aborted; ++i) {
    wr.wr_id = wr_id + i;
    wr.sg_list = {{.addr = qp->va + offset + i * stride, .length = len, .lkey = qp->lkey}};
    wr.remote_addr = remote_addr + i * stride;
    checked(ctx, c.pos, dut.post_send(qp->dut_qpn, wr));
  }
}

// dut expect_completion [QP] status= opcode= len= imm= wr_id= src_qp= [count=N]: the DUT's
// next N completions (wr_id counting up from wr_id=), each within the PIXIT's completion
// wait; the first that differs is reported and ends the line. expect_no_completion window=MS.
void expect_completion(const Command& c, TestContext& ctx, bool none) {
  Args a(c, ctx);
  QpBinding* qp = named_dut_qp(c, ctx);
  if (!qp || ctx.aborted) return;
  const uint64_t wait_ms =
      none ? a.number("window", ctx.pixit.no_packet_ms) : ctx.pixit.completion_ms;
  const uint64_t count = none ? 1 : a.number("count", 1);
  if (ctx.aborted) return;
  if (count == 0 || count > 4096)
    return ctx.error(a.pos("count"), "expect_completion: count is 1..4096");
  protocol::DutClient dut = dut_client(ctx);
  for (uint64_t i = 0; i < count; ++i) {
    auto list = wait_in_chunks(
        ctx, c.pos, wait_ms, [&](uint64_t chunk) { return dut.poll_cq(qp->cq, 1, chunk); },
        [](const std::vector<protocol::Completion>& got) { return !got.empty(); });
    if (!list) return;
    ctx.last_event_ns = ctx.port.now_ns();
    if (none) {
      if (!list->empty())
        ctx.fail(c.pos, "completion", "none", protocol::to_json(list->front()).dump(),
                 "the DUT completed a work request it should not have");
      return;
    }
    const std::string nth =
        count > 1 ? " (completion " + std::to_string(i + 1) + " of " + std::to_string(count) + ")"
                  : "";
    if (list->empty()) {
      ctx.fail(c.pos, "completion", "a completion",
               "none within " + std::to_string(wait_ms) + " ms",
               "the DUT reported no completion" + nth);
      return;
    }
    const protocol::Completion& got = list->front();
    bool differs = false;
    // `key` is the reply's member, absent when `have` is empty; values shown as JSON.
    auto check = [&](const std::string& arg, const std::string& key, const json& want,
                     const std::optional<json>& have) {
      if (!have || *have != want) {
        differs = true;
        ctx.fail(a.pos(arg), "completion." + key, want.dump(), have ? have->dump() : "absent",
                 "completion field differs" + nth);
      }
    };
    auto some = [](const std::optional<uint64_t>& v) {
      return v ? std::optional<json>(*v) : std::nullopt;
    };
    check("status", "status", a.name("status", "SUCCESS"), json(got.status));
    if (a.has("opcode")) check("opcode", "opcode", a.name("opcode", ""), json(got.opcode));
    if (a.has("len")) check("len", "byte_len", a.number("len", 0), json(got.byte_len));
    if (a.has("imm")) check("imm", "imm_data", a.number("imm", 0), some(got.imm_data));
    if (a.has("wr_id")) check("wr_id", "wr_id", a.number("wr_id", 0) + i, json(got.wr_id));
    if (a.has("src_qp")) check("src_qp", "src_qp", a.number("src_qp", 0), some(got.src_qp));
    if (differs) return;
  }
}

// dut arm_cq [QP] solicited_only=0|1: arms the QP's CQ for its next (solicited) completion.
void arm_cq(const Command& c, TestContext& ctx) {
  Args a(c, ctx);
  QpBinding* qp = named_dut_qp(c, ctx);
  if (!qp || ctx.aborted) return;
  const bool solicited_only = a.number("solicited_only", 0) != 0;
  if (!ctx.aborted) checked(ctx, c.pos, dut_client(ctx).req_notify_cq(qp->cq, solicited_only));
}

// dut expect_cq_event [QP] / expect_no_cq_event [QP] window=MS: the QP's CQ raised a completion
// event (within the PIXIT's completion wait), or none within the window.
void expect_cq_event(const Command& c, TestContext& ctx, bool none) {
  Args a(c, ctx);
  QpBinding* qp = named_dut_qp(c, ctx);
  if (!qp || ctx.aborted) return;
  const uint64_t wait_ms =
      none ? a.number("window", ctx.pixit.no_packet_ms) : ctx.pixit.completion_ms;
  protocol::DutClient dut = dut_client(ctx);
  auto reply = wait_in_chunks(
      ctx, c.pos, wait_ms, [&](uint64_t chunk) { return dut.get_cq_event(qp->cq, chunk); },
      [](uint64_t events) { return events > 0; });
  if (!reply) return;
  const uint64_t events = *reply;
  ctx.last_event_ns = ctx.port.now_ns();
  if (none && events > 0) {
    ctx.fail(c.pos, "cq_event", "none", std::to_string(events) + " event(s)",
             "the DUT raised a completion event it should not have");
  } else if (!none && events == 0) {
    ctx.fail(c.pos, "cq_event", "an event", "none within " + std::to_string(wait_ms) + " ms",
             "the DUT raised no completion event");
  }
}

// dut expect_counter name=NAME delta=N: the DUT's counter NAME grew by exactly N since the
// exchange began (counters are device-wide on many devices: a test reads them only where
// nothing else runs). A DUT that does not report the counter cannot be judged: inconc.
void expect_counter(const Command& c, TestContext& ctx) {
  Args a(c, ctx);
  const std::string name = a.name("name", "");
  const uint64_t delta = a.number("delta", 0);
  if (ctx.aborted) return;
  if (name.empty() || !a.has("delta"))
    return ctx.error(c.pos, "dut expect_counter needs name=COUNTER delta=N");
  if (!ctx.counters_at_start)
    return ctx.error(c.pos, "dut expect_counter before the first packet line: no baseline");
  auto reply = checked(ctx, c.pos, dut_client(ctx).counters());
  if (!reply) return;
  const protocol::Counters& now = *reply;
  const protocol::Counters& before = *ctx.counters_at_start;
  if (!now.contains(name) || !before.contains(name)) {
    ctx.result.verdict = report::worse(ctx.result.verdict, report::Verdict::kInconc);
    if (ctx.result.reason.empty())
      ctx.result.reason =
          "the DUT reports no counter '" + name + "' (line " + std::to_string(c.pos.line) + ")";
    return;
  }
  const uint64_t grew = now.at(name) - before.at(name);
  if (grew != delta) {
    ctx.fail(a.pos("delta"), "counter." + name, "+" + std::to_string(delta),
             "+" + std::to_string(grew), "the DUT's counter changed by another amount");
  }
}

void expect_state(const Command& c, TestContext& ctx) {
  Args a(c, ctx);
  QpBinding* qp = named_dut_qp(c, ctx);
  if (!qp || ctx.aborted) return;
  auto reply = checked(ctx, c.pos, dut_client(ctx).query_qp(qp->dut_qpn));
  if (!reply) return;
  const std::string want = a.name("state", "RTS");
  const std::string& got = reply->state;
  if (got != want) ctx.fail(a.pos("state"), "qp.state", want, got, "QP state differs");
  // Section 18's mode, as query_qp reports it (MR-EX-10: fixed from RTR until RESET).
  if (!a.has("ext_mode")) return;
  const std::string mode = a.name("ext_mode", "EXT");
  if (reply->ext_mode != mode) {
    ctx.fail(a.pos("ext_mode"), "qp.ext_mode", mode, reply->ext_mode.value_or("none"),
             reply->ext_mode ? "the QP's extension mode differs"
                             : "query_qp reports no attrs.ext_mode: the DUT has no Part II");
  }
}

void modify_qp(const Command& c, TestContext& ctx) {
  Args a(c, ctx);
  QpBinding* qp = named_dut_qp(c, ctx);
  if (!qp || ctx.aborted) return;
  const std::string state = a.name("state", "ERROR");
  QpAttrs attrs{.state = state};
  // RESET -> INIT needs a P_Key and access flags (IBTA 10.3.1); the script may set them.
  if (state == "INIT") {
    attrs.pkey = a.number("pkey", 0xffff);
    attrs.access_flags = remote_rights(a.name("access", "ALL"));
  }
  if (!ctx.aborted) checked(ctx, c.pos, dut_client(ctx).modify_qp(qp->dut_qpn, attrs));
}

}  // namespace

void run_dut_command(const Command& c, TestContext& ctx) {
  // A command that observes the DUT sees the packets already sent to it: let what is on
  // the wire arrive first (within the PIXIT's absolute tolerance), as a person typing the
  // command after the packet would.
  if (c.name.rfind("expect_", 0) == 0) {
    ctx.port.wait_until(ctx.port.now_ns() +
                        static_cast<uint64_t>(ctx.pixit.tolerance_abs_ms * 1e6));
  }
  if (c.name == "create_qp" && !c.assign.empty()) return create_qp(c, ctx);
  if (c.name == "post_recv") return post_recv(c, ctx);
  if (c.name == "post_send") return post_send(c, ctx);
  if (c.name == "expect_completion") return expect_completion(c, ctx, false);
  if (c.name == "expect_no_completion") return expect_completion(c, ctx, true);
  if (c.name == "write_mem") return write_dut_mem(c, ctx);
  if (c.name == "dereg_mr") return dereg_dut_mem(c, ctx);
  if (c.name == "fill_mem") return fill_dut_mem(c, ctx);
  if (c.name == "expect_mem") return expect_dut_mem(c, ctx);
  if (c.name == "expect_state") return expect_state(c, ctx);
  if (c.name == "modify_qp") return modify_qp(c, ctx);
  if (c.name == "arm_cq") return arm_cq(c, ctx);
  if (c.name == "expect_counter") return expect_counter(c, ctx);
  if (c.name == "expect_cq_event") return expect_cq_event(c, ctx, false);
  if (c.name == "expect_no_cq_event") return expect_cq_event(c, ctx, true);
  if (c.name == "set_ev_state") return set_ev_state(c, ctx);
  if (c.name == "set_port") return set_port(c, ctx);
  if (c.name == "expect_ev_state") return expect_ev_state(c, ctx);
  if (c.name == "expect_cwnd") return expect_cwnd(c, ctx);
  if (c.name == "secure_install") return secure_install(c, ctx);
  if (c.name == "secure_rotate") return secure_rotate(c, ctx);
  // The parser refuses unknown commands (command_schema); a script built in code can get here.
  ctx.error(c.pos, "'dut " + c.name + "' is not a command of the language");
}

protocol::DutClient dut_client(DutPort& port) {
  return protocol::DutClient(
      [&port](protocol::Json request) { return port.control(std::move(request)); });
}

void control_failed(TestContext& ctx, const script::Position& pos,
                    const protocol::ControlError& error) {
  // ENOSPC is a limit of the DUT (memory, a queue or table slot), not a fault of the script:
  // the test cannot be judged there (docs/dut-control-protocol.md).
  if (error.code == protocol::ErrorCode::kEnospc)
    ctx.inconclusive(pos, "the DUT lacks the resources this test needs: " + error.to_string());
  else
    ctx.error(pos, "DUT control: " + error.to_string());
}

}  // namespace mr::engine
