#include "harness/interop/agent_peer.h"

#include <algorithm>

#include "harness/agent/control_parse.h"
#include "harness/agent/control_reply.h"
#include "harness/agent/dut_types.h"

namespace mr::interop {
namespace {

constexpr uint32_t kCqDepth = 64;
constexpr uint32_t kQueueDepth = 16;
constexpr uint32_t kRdAtomic = 16;
const dut::Json kRemoteAccess = {"REMOTE_WRITE", "REMOTE_READ", "REMOTE_ATOMIC"};

dut::Json sg_list(const transport::SendWr& wr) {
  auto list = dut::Json::array();
  for (const auto& s : wr.sg_list) {
    list.push_back({{"addr", s.addr}, {"length", s.length}, {"lkey", s.lkey}});
  }
  return list;
}

}  // namespace

AgentPeer::AgentPeer(dut::DutControl& control, std::string name)
    : control_(control), name_(std::move(name)) {}

Result<dut::Json> AgentPeer::call(const char* step, std::string_view op, dut::Json args,
                                  std::optional<uint64_t> timeout_ms) {
  auto reply = control_.call(op, std::move(args), timeout_ms);
  if (!reply) return Unexpected(name_ + " " + step + ": " + reply.error().to_string());
  return std::move(*reply);
}

Result<void> AgentPeer::setup(uint64_t buffer_bytes) {
  auto pd = call("create_pd", "create_pd", dut::Json::object());
  if (!pd) return Unexpected(pd.error());
  pd_ = (*pd)["pd"].get<uint32_t>();
  dut::Json access = kRemoteAccess;
  access.push_back("LOCAL_WRITE");
  auto mr = call("reg_mr", "reg_mr", {{"pd", *pd_}, {"length", buffer_bytes}, {"access", access}});
  if (!mr) return Unexpected(mr.error());
  has_mr_ = true;
  buffer_ = {.lkey = (*mr)["lkey"].get<uint32_t>(),
             .rkey = (*mr)["rkey"].get<uint32_t>(),
             .va = (*mr)["va"].get<uint64_t>(),
             .length = (*mr)["length"].get<uint64_t>()};
  auto cq = call("create_cq", "create_cq", {{"depth", kCqDepth}});
  if (!cq) return Unexpected(cq.error());
  cq_ = (*cq)["cq"].get<uint32_t>();
  auto qp = call("create_qp", "create_qp",
                 {{"pd", *pd_},
                  {"send_cq", *cq_},
                  {"recv_cq", *cq_},
                  {"type", "RC"},
                  {"max_send_wr", kQueueDepth},
                  {"max_recv_wr", kQueueDepth}});
  if (!qp) return Unexpected(qp.error());
  qpn_ = (*qp)["qpn"].get<uint32_t>();
  auto init =
      call("modify_qp INIT", "modify_qp",
           {{"qpn", *qpn_},
            {"attrs", {{"state", "INIT"}, {"pkey", 0xffff}, {"access_flags", kRemoteAccess}}}});
  if (!init) return Unexpected(init.error());
  return {};
}

Result<void> AgentPeer::connect(const ConnectArgs& a) {
  // The verbs agent ignores dmac (the kernel resolves the neighbour: the guest has a
  // permanent entry for the tester's address); a reference agent needs it.
  auto rtr =
      call("modify_qp RTR", "modify_qp",
           {{"qpn", qpn()},
            {"attrs",
             {{"state", "RTR"},
              {"path_mtu", a.mtu},
              {"dest_qpn", a.remote_qpn},
              {"rq_psn", a.remote_psn},
              {"max_dest_rd_atomic", kRdAtomic},
              {"min_rnr_timer", 12},
              {"av", {{"dip", a.remote_ip.to_string()}, {"dmac", a.remote_mac.to_string()}}}}}});
  if (!rtr) return Unexpected(rtr.error());
  auto rts = call("modify_qp RTS", "modify_qp",
                  {{"qpn", qpn()},
                   {"attrs",
                    {{"state", "RTS"},
                     {"sq_psn", a.local_psn},
                     {"timeout", a.timeout},
                     {"retry_cnt", a.retry_cnt},
                     {"rnr_retry", a.rnr_retry},
                     {"max_rd_atomic", kRdAtomic}}}});
  if (!rts) return Unexpected(rts.error());
  return {};
}

Result<void> AgentPeer::post_send(const transport::SendWr& wr) {
  dut::Json w = {{"wr_id", wr.wr_id},
                 {"opcode", std::string(transport::to_string(wr.opcode))},
                 {"sg_list", sg_list(wr)}};
  if (wr.opcode != transport::SendOpcode::kSend) {
    w["remote_addr"] = wr.remote_addr;
    w["rkey"] = wr.rkey;
  }
  if (wr.opcode == transport::SendOpcode::kFetchAdd ||
      wr.opcode == transport::SendOpcode::kCompareSwap) {
    w["compare_add"] = wr.compare_add;
  }
  if (wr.opcode == transport::SendOpcode::kCompareSwap) w["swap"] = wr.swap;
  auto done = call("post_send", "post_send", {{"qpn", qpn()}, {"wr", w}});
  if (!done) return Unexpected(done.error());
  return {};
}

Result<void> AgentPeer::post_recv(uint64_t wr_id, uint64_t offset, uint32_t length) {
  auto sges = dut::Json::array();
  if (length > 0) {
    sges.push_back({{"addr", buffer_.va + offset}, {"length", length}, {"lkey", buffer_.lkey}});
  }
  auto done = call("post_recv", "post_recv",
                   {{"qpn", qpn()}, {"wr", {{"wr_id", wr_id}, {"sg_list", sges}}}});
  if (!done) return Unexpected(done.error());
  return {};
}

Result<std::vector<CompletionRecord>> AgentPeer::poll(uint32_t timeout_ms) {
  const uint32_t wait = std::min(timeout_ms, agent::kMaxPollTimeoutMs);
  auto polled =
      call("poll_cq", "poll_cq", {{"cq", cq_.value_or(0)}, {"max", 16}, {"timeout_ms", wait}});
  if (!polled) return Unexpected(polled.error());
  std::vector<CompletionRecord> out;
  for (const auto& c : (*polled)["completions"]) {
    out.push_back({.wr_id = c.value("wr_id", uint64_t{0}),
                   .status = c.value("status", std::string()),
                   .opcode = c.value("opcode", std::string()),
                   .byte_len = c.value("byte_len", uint32_t{0})});
  }
  return out;
}

Result<std::vector<uint8_t>> AgentPeer::read(uint64_t offset, uint64_t length) {
  std::vector<uint8_t> bytes;
  bytes.reserve(length);
  for (uint64_t at = 0; at < length;) {
    const uint64_t n = std::min(length - at, agent::kMaxMemTransfer);
    auto got = call("read_mem", "read_mem",
                    {{"lkey", buffer_.lkey}, {"va", buffer_.va + offset + at}, {"length", n}});
    if (!got) return Unexpected(got.error());
    auto data = agent::parse_hex((*got)["data"], "data", agent::kMaxMemTransfer);
    if (!data) return Unexpected(name_ + " read_mem: " + data.error().to_string());
    bytes.insert(bytes.end(), data->begin(), data->end());
    at += n;
  }
  return bytes;
}

Result<void> AgentPeer::write(uint64_t offset, const std::vector<uint8_t>& bytes) {
  for (uint64_t at = 0; at < bytes.size();) {
    const uint64_t n = std::min<uint64_t>(bytes.size() - at, agent::kMaxMemTransfer);
    const std::vector<uint8_t> piece(bytes.begin() + static_cast<ptrdiff_t>(at),
                                     bytes.begin() + static_cast<ptrdiff_t>(at + n));
    auto done = call(
        "write_mem", "write_mem",
        {{"lkey", buffer_.lkey}, {"va", buffer_.va + offset + at}, {"data", agent::to_hex(piece)}});
    if (!done) return Unexpected(done.error());
    at += n;
  }
  return {};
}

Result<void> AgentPeer::teardown() {
  // In dependency order; the first failure is reported, the rest still attempted.
  std::optional<std::string> first;
  auto destroy = [&](const char* kind, std::optional<uint32_t>& handle) {
    if (!handle) return;
    auto done = call("destroy", "destroy", {{"kind", kind}, {"handle", *handle}});
    if (!done && !first) first = done.error();
    handle.reset();
  };
  destroy("qp", qpn_);
  destroy("cq", cq_);
  if (has_mr_) {
    std::optional<uint32_t> mr = buffer_.lkey;
    destroy("mr", mr);
    has_mr_ = false;
  }
  destroy("pd", pd_);
  if (first) return Unexpected(*first);
  return {};
}

}  // namespace mr::interop
