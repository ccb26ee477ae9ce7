#include "harness/engine/tester_commands.h"

#include <algorithm>

#include "harness/engine/command_args.h"
#include "harness/engine/credit_share_command.h"
#include "harness/engine/dut_commands.h"
#include "harness/engine/impair_command.h"
#include "harness/engine/memory_commands.h"
#include "harness/engine/secure_session.h"
#include "harness/peer/data_pattern.h"
#include "harness/protocol/dut_client.h"
#include "reference/transport/work_request.h"

namespace mr::engine {
namespace {

using script::Command;

constexpr uint64_t kDefaultTesterMrLength = 1 << 20;
constexpr uint64_t kMaxTesterMrLength = 1 << 28;
constexpr uint64_t kTesterVaBase = 0x40000000;
constexpr uint64_t kMaxPostCount = 4096;  // the tester's send and receive queue depth
constexpr uint64_t kMaxWaitMs = 600'000;  // `tester wait max_ms=`: ten minutes of DUT time

TesterQp* tester_qp(const Command& c, TestContext& ctx, bool must_be_connected) {
  auto it = ctx.tester_qps.find(c.target);
  if (c.target.empty() || it == ctx.tester_qps.end()) {
    ctx.error(c.pos, c.actor + " " + c.name + ": no tester QP named '" + c.target +
                         "' (create it with tester qp " +
                         (c.target.empty() ? std::string("T") : c.target) + " = create_qp(...))");
    return nullptr;
  }
  if (must_be_connected && it->second.dut_qp.empty()) {
    ctx.error(c.pos, c.actor + " " + c.name + ": tester QP " + c.target +
                         " is not connected yet (connect " + c.target + " A)");
    return nullptr;
  }
  return &it->second;
}

// Everything Part II has: each tester QP offers only what its DUT QP's create_qp line
// offered in the tester's name (PeerPath::offered_mxcap).
wire::Mxcap every_feature() {
  wire::Mxcap m;
  m.features = 0xff;  // every bit of Features is defined
  m.features2 = wire::kMxcapNonFatal | wire::kMxcapResync | wire::kMxcapSecure;
  return m;
}

peer::ReferencePeer& reference_peer(TestContext& ctx) {
  const Pixit& px = ctx.pixit;
  // No mutants: the tester is always a correct endpoint.
  return ctx.driven->peer({.mac = px.tester_mac,
                           .ip = px.tester_ip,
                           .ip6 = px.tester_ip6,
                           .seed = ctx.seed ^ 0x7e57e4ULL,
                           .mutants = {},
                           .mxcap = every_feature()});
}

// Extension mode for a tester QP connected to an Ext connection: it offers the block the
// DUT's QP was given in its name, against the block the DUT offers (its capabilities), so
// that both ends agree the same features. False after reporting the error.
bool ext_blocks(const Command& c, TestContext& ctx, const QpBinding& dut, peer::PeerPath& path) {
  if (!dut.tester_mxcap) return true;
  auto caps = dut_client(ctx).capabilities();
  if (!caps) {
    ctx.error(c.pos, "connect: the DUT's capabilities (its MXCAP block): " + caps.error().message);
    return false;
  }
  std::optional<wire::Mxcap> block;
  if (const auto bytes = protocol::from_hex(caps->mxcap); bytes && !bytes->empty()) {
    if (auto parsed = wire::Mxcap::parse(*bytes)) block = *parsed;
  }
  if (!block) {
    ctx.error(c.pos,
              "connect: the DUT's QP is in extension mode but its capabilities carry no "
              "readable MXCAP block (mxcap: \"" +
                  caps->mxcap + "\")");
    return false;
  }
  path.peer_mxcap = *block;
  path.offered_mxcap = dut.tester_mxcap;
  // Section 19.4: the tester's end of every epoch installed at the DUT so far. From here on
  // the tester QP seals with its own PNs: `<` lines on the connection are refused (one
  // sender per SA), and `dut secure_install` installs at both ends.
  if (dut.connection.secure) {
    transport::ext::SecurityAssociations keys;
    for (const uint16_t epoch : dut.connection.secure->epochs()) {
      const auto e = SecureSession::tester_keys(epoch);
      keys.tx.insert(keys.tx.end(), e.tx.begin(), e.tx.end());
      keys.rx.insert(keys.rx.end(), e.rx.begin(), e.rx.end());
    }
    path.secure_sa = std::move(keys);
  }
  return true;
}

void create_qp(const Command& c, TestContext& ctx) {
  static const std::set<std::string> kSettings{
      "mtu",       "mr_len",        "timeout",       "retry_cnt",
      "rnr_retry", "min_rnr_timer", "max_rd_atomic", "max_dest_rd_atomic"};
  Args a(c, ctx);
  if (ctx.aborted) return;
  if (ctx.tester_qps.contains(c.assign) || ctx.qps.contains(c.assign))
    return ctx.error(c.pos, "tester qp " + c.assign + ": the name is taken");
  TesterQp t;
  t.type = a.name("type", "RC");
  if (t.type != "RC" && t.type != "UC")
    return ctx.error(a.pos("type"), "tester create_qp: type must be RC or UC");
  for (const auto& s : kSettings)
    if (a.has(s)) t.settings[s] = a.number(s, 0);
  const uint64_t mr_len = a.number("mr_len", kDefaultTesterMrLength);
  if (ctx.aborted) return;
  if (mr_len == 0 || mr_len > kMaxTesterMrLength)
    return ctx.error(a.pos("mr_len"), "tester create_qp mr_len: 1.." +
                                          std::to_string(kMaxTesterMrLength) + " bytes");
  t.mr_length = mr_len;
  t.pattern_seed = region_pattern_seed(ctx.seed, c.assign);
  ctx.tester_qps[c.assign] = std::move(t);
}

uint8_t setting(const TesterQp& t, const std::string& name, uint64_t fallback) {
  auto it = t.settings.find(name);
  return static_cast<uint8_t>(it == t.settings.end() ? fallback : it->second);
}

void connect(const Command& c, TestContext& ctx) {
  TesterQp* t = tester_qp(c, ctx, false);
  if (t == nullptr) return;
  const std::string dut_name = c.args.empty() ? "" : c.args[0].value.text;
  auto it = ctx.qps.find(dut_name);
  if (it == ctx.qps.end())
    return ctx.error(
        c.pos, "connect " + c.target + " " + dut_name + ": no DUT QP named '" + dut_name + "'");
  QpBinding& dut = it->second;
  if (!t->dut_qp.empty() || !dut.tester_qp.empty())
    return ctx.error(
        c.pos, "connect: " + (t->dut_qp.empty() ? dut_name : c.target) + " is already connected");
  if (dut.type != t->type)
    return ctx.error(c.pos, "connect: DUT QP " + dut_name + " is " + dut.type + ", tester QP " +
                                c.target + " is " + t->type);
  if (c.args.size() > 1) return ctx.error(c.args[1].pos, "connect takes no arguments");
  const uint64_t index = ctx.tester_qps.size();
  auto& peer = reference_peer(ctx);
  auto info =
      peer.create_qp({.type = t->type == "UC" ? transport::QpType::kUc : transport::QpType::kRc,
                      .qpn = dut.connection.tester_qpn,
                      .mr_length = t->mr_length,
                      .va = kTesterVaBase + (index << 32),
                      .pattern_seed = t->pattern_seed});
  if (!info) return ctx.error(c.pos, "connect: the tester's reference QP: " + info.error());
  const ConnectionDefaults& k = dut.connection;
  peer::PeerPath path;
  path.av.smac = k.tester_mac;
  path.av.dmac = k.dut_mac;
  if (k.ipv6()) {
    path.av.sip = *k.tester_ip6;
    path.av.dip = *k.dut_ip6;
  } else {
    path.av.sip = k.tester_ip;
    path.av.dip = k.dut_ip;
  }
  path.av.udp_sport = k.udp_sport;
  path.av.vlan_id = k.vlan;
  path.av.vlan_prio = k.pcp;
  path.av.traffic_class = 0x02;  // ECT(0), as RoCEv2 senders mark their packets
  path.dest_qpn = dut.dut_qpn;
  path.rq_psn = static_cast<uint32_t>(ctx.symbols.get(dut_name + ".Q").value_or(0));
  path.sq_psn = static_cast<uint32_t>(ctx.symbols.get(dut_name + ".P").value_or(0));
  path.mtu = t->settings.contains("mtu") ? static_cast<uint32_t>(t->settings.at("mtu")) : dut.mtu;
  path.pkey = k.pkey;
  path.timeout = setting(*t, "timeout", 14);
  path.retry_cnt = setting(*t, "retry_cnt", 7);
  path.rnr_retry = setting(*t, "rnr_retry", 7);
  path.min_rnr_timer = setting(*t, "min_rnr_timer", 12);
  path.max_rd_atomic = setting(*t, "max_rd_atomic", 16);
  path.max_dest_rd_atomic = setting(*t, "max_dest_rd_atomic", 16);
  if (!ext_blocks(c, ctx, dut, path)) return;
  if (auto ok = peer.connect(info->qpn, path); !ok)
    return ctx.error(c.pos, "connect: the tester's reference QP: " + ok.error());
  t->dut_qp = dut_name;
  t->qpn = info->qpn;
  t->cq = info->cq;
  t->lkey = info->lkey;
  t->rkey = info->rkey;
  t->va = info->va;
  dut.tester_qp = c.target;
  const std::string& n = c.target;
  ctx.symbols.set(n + ".qpn", t->qpn);
  ctx.symbols.set(n + ".rkey", t->rkey);
  ctx.symbols.set(n + ".lkey", t->lkey);
  ctx.symbols.set(n + ".va", t->va);
  ctx.symbols.set(n + ".len", t->mr_length);
  ctx.symbols.set(n + ".P", path.sq_psn);  // its first request PSN
  ctx.symbols.set(n + ".Q", path.rq_psn);  // the DUT's first request PSN, as it expects it
}

void post_send(const Command& c, TestContext& ctx) {
  Args a(c, ctx);
  TesterQp* t = tester_qp(c, ctx, true);
  if (t == nullptr || ctx.aborted) return;
  const std::string opcode = a.name("opcode", "SEND");
  transport::SendWr wr;
  if (!transport::send_opcode_from_string(opcode, wr.opcode))
    return ctx.error(a.pos("opcode"),
                     "tester post_send opcode: unknown '" + opcode +
                         "' (SEND, SEND_WITH_IMM, SEND_WITH_INV, RDMA_WRITE, RDMA_WRITE_WITH_IMM, "
                         "RDMA_READ, ATOMIC_CMP_AND_SWP, ATOMIC_FETCH_AND_ADD)");
  const bool atomic = wr.opcode == transport::SendOpcode::kCompareSwap ||
                      wr.opcode == transport::SendOpcode::kFetchAdd;
  const uint64_t len = a.number("len", atomic ? 8 : 0);
  const uint64_t offset = a.number("offset", 0);
  const uint64_t remote_offset = a.number("remote_offset", 0);
  const uint64_t count = a.number("count", 1);
  const uint64_t stride = a.number("stride", len);
  const uint64_t wr_id = a.number("wr_id", 1);
  const QpBinding& dut = ctx.qps.at(t->dut_qp);
  wr.rkey = static_cast<uint32_t>(a.number("rkey", dut.rkey));
  wr.imm_data = static_cast<uint32_t>(a.number("imm", 0));
  wr.solicited = a.number("solicited", 0) != 0;
  wr.signaled = a.number("signaled", 1) != 0;
  wr.compare_add = a.number("compare_add", 0);
  wr.swap = a.number("swap", 0);
  wr.invalidate_rkey = static_cast<uint32_t>(a.number("invalidate_rkey", 0));
  if (ctx.aborted) return;
  if (count == 0 || count > kMaxPostCount)
    return ctx.error(a.pos("count"), "tester post_send count: 1.." + std::to_string(kMaxPostCount));
  if (len > (uint64_t{1} << 31))
    return ctx.error(a.pos("len"), "tester post_send len: at most 2^31 bytes");
  if (offset + (count - 1) * stride + len > t->mr_length)
    return ctx.error(c.pos, "tester post_send: the messages end past tester QP " + c.target +
                                "'s region of " + std::to_string(t->mr_length) + " bytes");
  for (uint64_t i = 0; i < count; ++i) {
    wr.wr_id = wr_id + i;
    wr.sg_list = {{t->va + offset + i * stride, static_cast<uint32_t>(len), t->lkey}};
    wr.remote_addr = dut.va + remote_offset + i * stride;
    if (auto ok = ctx.driven->peer()->post_send(t->qpn, wr); !ok)
      return ctx.error(c.pos, "tester post_send: " + ok.error());
  }
}

void post_recv(const Command& c, TestContext& ctx) {
  Args a(c, ctx);
  TesterQp* t = tester_qp(c, ctx, true);
  if (t == nullptr || ctx.aborted) return;
  const uint64_t count = a.number("count", 1);
  const uint64_t len = a.number("len", 4096);
  const uint64_t offset = a.number("offset", 0);
  const uint64_t wr_id = a.number("wr_id", 0);
  if (ctx.aborted) return;
  if (count == 0 || count > kMaxPostCount)
    return ctx.error(a.pos("count"), "tester post_recv count: 1.." + std::to_string(kMaxPostCount));
  if (len > 0xffffffffULL || offset + count * len > t->mr_length)
    return ctx.error(c.pos,
                     "tester post_recv: buffers end past tester QP " + c.target + "'s region");
  for (uint64_t i = 0; i < count; ++i) {
    transport::RecvWr wr;
    wr.wr_id = wr_id + i;
    wr.sg_list = {{t->va + offset + i * len, static_cast<uint32_t>(len), t->lkey}};
    if (auto ok = ctx.driven->peer()->post_recv(t->qpn, wr); !ok)
      return ctx.error(c.pos, "tester post_recv: " + ok.error());
  }
}

std::string describe(const transport::Completion& w) {
  return "wr_id " + std::to_string(w.wr_id) + " " + std::string(transport::to_string(w.opcode)) +
         " " + std::string(transport::to_string(w.status)) + " len " + std::to_string(w.byte_len);
}

// Runs the exchange until the tester QP has `count` completions queued, or `wait_ms` pass
// without a new one (so a broken DUT's endless exchange ends one wait after its last
// completion, however many were asked for).
bool await_completions(TestContext& ctx, TesterQp& t, size_t count, uint64_t wait_ms) {
  auto& peer = *ctx.driven->peer();
  for (size_t had = t.completions.size(); t.completions.size() < count;) {
    const uint64_t deadline = ctx.port.now_ns() + wait_ms * 1'000'000;
    ctx.driven->run_until(deadline, [&] {
      for (auto& w : peer.poll(t.qpn, 64)) t.completions.push_back(w);
      return t.completions.size() >= count || t.completions.size() > had;
    });
    if (t.completions.size() == had) return false;
    had = t.completions.size();
  }
  return true;
}

void expect_completion(const Command& c, TestContext& ctx, bool none) {
  Args a(c, ctx);
  TesterQp* t = tester_qp(c, ctx, true);
  if (t == nullptr || ctx.aborted) return;
  if (none) {
    const uint64_t window = a.number("window", ctx.pixit.no_packet_ms);
    if (ctx.aborted) return;
    await_completions(ctx, *t, 1, window);
    ctx.last_event_ns = ctx.port.now_ns();
    if (!t->completions.empty())
      ctx.fail(c.pos, "completion", "none", describe(t->completions.front()),
               "the tester completed a work request it should not have");
    return;
  }
  const uint64_t count = a.number("count", 1);
  const std::string status = a.name("status", "SUCCESS");
  const std::string opcode = a.name("opcode", "");
  if (ctx.aborted) return;
  if (count == 0 || count > kMaxPostCount)
    return ctx.error(a.pos("count"),
                     "tester expect_completion count: 1.." + std::to_string(kMaxPostCount));
  // Each completion within the PIXIT's wait of the one before.
  await_completions(ctx, *t, count, ctx.pixit.completion_ms);
  ctx.last_event_ns = ctx.port.now_ns();
  for (uint64_t i = 0; i < count; ++i) {
    if (t->completions.empty()) {
      ctx.fail(c.pos, "completion", std::to_string(count) + " completion(s)",
               std::to_string(i) + " within the wait",
               "the tester's reference QP " + c.target + " reported no further completion");
      return;
    }
    const transport::Completion w = t->completions.front();
    t->completions.pop_front();
    bool differs = false;
    auto check = [&](const char* arg, const std::string& field, const std::string& want,
                     const std::string& got) {
      if (want == got) return;
      differs = true;
      ctx.fail(a.pos(arg), "completion." + field, want, got,
               "tester completion " + std::to_string(i + 1) + " of " + std::to_string(count) +
                   " differs: " + describe(w));
    };
    check("status", "status", status, std::string(transport::to_string(w.status)));
    if (!opcode.empty())
      check("opcode", "opcode", opcode, std::string(transport::to_string(w.opcode)));
    if (a.has("len"))
      check("len", "byte_len", std::to_string(a.number("len", 0)), std::to_string(w.byte_len));
    if (a.has("wr_id"))
      check("wr_id", "wr_id", std::to_string(a.number("wr_id", 0) + i), std::to_string(w.wr_id));
    if (a.has("imm"))
      check("imm", "imm_data", std::to_string(a.number("imm", 0)),
            w.imm_data ? std::to_string(*w.imm_data) : "absent");
    // The first completion that differs tells the story; the rest would repeat it.
    if (differs) {
      t->completions.clear();
      return;
    }
  }
}

// tester wait T until=idle [max_ms=MS]: the exchange runs until T's sends are all
// complete; tester wait T ms=MS: it runs for MS ms of DUT time (the tester is slow to react).
void wait(const Command& c, TestContext& ctx) {
  Args a(c, ctx);
  TesterQp* t = tester_qp(c, ctx, true);
  if (t == nullptr || ctx.aborted) return;
  auto& peer = *ctx.driven->peer();
  if (a.has("ms") || a.has("us")) {
    // us= for the timers of Part II, which run in tens of microseconds.
    const bool in_us = a.has("us");
    const uint64_t n = a.number(in_us ? "us" : "ms", 0);
    if (ctx.aborted) return;
    if (a.has("until") || a.has("max_ms") || (in_us && a.has("ms")))
      return ctx.error(c.pos,
                       "tester wait: ms= or us= runs for a time; until= and max_ms= wait for idle");
    const uint64_t most = in_us ? kMaxWaitMs * 1000 : kMaxWaitMs;
    if (n == 0 || n > most)
      return ctx.error(
          a.pos(in_us ? "us" : "ms"),
          std::string("tester wait ") + (in_us ? "us" : "ms") + ": 1.." + std::to_string(most));
    ctx.driven->wait_until(ctx.port.now_ns() + n * (in_us ? 1'000 : 1'000'000));
    ctx.last_event_ns = ctx.port.now_ns();
    return;
  }
  const std::string until = a.name("until", "idle");
  const uint64_t max_ms = a.number("max_ms", ctx.pixit.completion_ms);
  if (ctx.aborted) return;
  if (until != "idle")
    return ctx.error(a.pos("until"), "tester wait until: idle (every posted send completed)");
  if (max_ms == 0 || max_ms > kMaxWaitMs)
    return ctx.error(a.pos("max_ms"), "tester wait max_ms: 1.." + std::to_string(kMaxWaitMs));
  const uint64_t deadline = ctx.port.now_ns() + max_ms * 1'000'000;
  const bool idle = ctx.driven->run_until(deadline, [&] {
    const auto* q = peer.qp(t->qpn);
    return q == nullptr || q->sq.empty();
  });
  ctx.last_event_ns = ctx.port.now_ns();
  if (!idle) {
    const auto* q = peer.qp(t->qpn);
    ctx.fail(c.pos, "tester", "idle within " + std::to_string(max_ms) + " ms",
             std::to_string(q ? q->sq.size() : 0) + " send(s) outstanding",
             "the exchange did not finish: the tester's sends were not all acknowledged");
  }
}

}  // namespace

uint64_t region_pattern_seed(uint64_t test_seed, const std::string& qp_name) {
  uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a of the name
  for (unsigned char ch : qp_name) h = (h ^ ch) * 0x100000001b3ULL;
  return peer::pattern_u64(test_seed ^ h, 0);
}

void run_tester_command(const Command& c, TestContext& ctx) {
  if (ctx.driven == nullptr) return ctx.error(c.pos, "this engine runs no tester QPs");
  if (c.actor == "connect") return connect(c, ctx);
  if (c.actor == "impair") return impair(c, ctx);
  if (c.name == "create_qp" && !c.assign.empty()) return create_qp(c, ctx);
  if (c.name == "post_send") return post_send(c, ctx);
  if (c.name == "post_recv") return post_recv(c, ctx);
  if (c.name == "expect_completion") return expect_completion(c, ctx, false);
  if (c.name == "expect_no_completion") return expect_completion(c, ctx, true);
  if (c.name == "wait") return wait(c, ctx);
  if (c.name == "expect_mem") return expect_tester_mem(c, ctx);
  if (c.name == "expect_credit_share") return expect_credit_share(c, ctx);
  // The parser refuses unknown commands (command_schema); a script built in code can get here.
  ctx.error(c.pos, "'tester " + c.name + "' is not a command of the language");
}

}  // namespace mr::engine
