#include "harness/protocol/dut_client.h"

#include <utility>

#include "harness/protocol/protocol_limits.h"
#include "harness/protocol/reply_reader.h"
#include "reference/wire/wide_integer.h"

namespace mr::protocol {
namespace {

constexpr uint64_t kU32 = 0xffffffff;

template <class T>
void put(Json& j, const char* key, const std::optional<T>& v) {
  if (v) j[key] = *v;
}

// A 64-bit member: a string above 2^53 - 1 (wide_integer.h).
void put_wide(Json& j, const char* key, const std::optional<uint64_t>& v) {
  if (v) j[key] = wire::wide_integer(*v);
}

Json sg_json(const std::vector<Sge>& list) {
  Json out = Json::array();
  for (const Sge& s : list)
    out.push_back({{"addr", wire::wide_integer(s.addr)}, {"length", s.length}, {"lkey", s.lkey}});
  return out;
}

// The reply's value once reading is done: the first malformed member's error, if any.
template <class T>
Reply<T> finish(const ReplyReader& r, T value) {
  if (r.error()) return Unexpected(*r.error());
  return value;
}

// The one handle a create_* reply carries.
Reply<uint32_t> handle(const char* op, const Json& reply, const char* key) {
  ReplyReader r(op, reply);
  const auto h = static_cast<uint32_t>(r.number(reply, "", key, kU32));
  return finish(r, h);
}

Reply<void> done(const Reply<Json>& reply) {
  if (!reply) return Unexpected(reply.error());
  return {};
}

Completion read_completion(ReplyReader& r, const Json& c, const std::string& path) {
  Completion out;
  if (!r.is_object(c, path)) return out;
  out.wr_id = r.number(c, path, "wr_id");
  out.status = r.string(c, path, "status");
  out.opcode = r.string(c, path, "opcode");
  out.byte_len = r.number(c, path, "byte_len");
  out.qp_num = static_cast<uint32_t>(r.number(c, path, "qp_num", kU32));
  out.imm_data = r.optional_number(c, path, "imm_data", kU32);
  out.invalidated_rkey = r.optional_number(c, path, "invalidated_rkey", kU32);
  out.solicited = r.optional_boolean(c, path, "solicited");
  out.src_qp = r.optional_number(c, path, "src_qp", kU32);
  out.grh = r.optional_boolean(c, path, "grh");
  return out;
}

// query_qp's attrs.ev_set: {ev, plane, state?} each.
std::vector<EvEntryInfo> read_ev_set(ReplyReader& r, const Json& attrs) {
  std::vector<EvEntryInfo> out;
  const Json& list = r.array(attrs, "attrs", "ev_set");
  for (size_t i = 0; i < list.size() && !r.error(); ++i) {
    const std::string path = element_path("attrs.ev_set", i);
    if (!r.is_object(list[i], path)) break;
    EvEntryInfo e;
    e.ev = r.number(list[i], path, "ev", 0xffff);
    e.plane = r.number(list[i], path, "plane", 15);
    if (list[i].contains("state")) e.state = r.string(list[i], path, "state");
    out.push_back(std::move(e));
  }
  return out;
}

std::vector<std::string> strings(ReplyReader& r, const Json& object, const char* key) {
  std::vector<std::string> out;
  const Json& list = r.array(object, "", key);
  for (size_t i = 0; i < list.size(); ++i)
    out.push_back(r.string_value(list[i], element_path(key, i)));
  return out;
}

}  // namespace

Json to_json(const AddressVector& av) {
  Json j = {{"dip", av.dip}};
  put(j, "dmac", av.dmac);
  put(j, "sip", av.sip);
  put(j, "traffic_class", av.traffic_class);
  put(j, "hop_limit", av.hop_limit);
  put(j, "flow_label", av.flow_label);
  put(j, "udp_sport", av.udp_sport);
  put(j, "vlan_id", av.vlan_id);
  put(j, "vlan_prio", av.vlan_prio);
  return j;
}

Json to_json(const QpAttrs& a) {
  Json j = Json::object();
  put(j, "state", a.state);
  put(j, "access_flags", a.access_flags);
  put(j, "pkey", a.pkey);
  put(j, "qkey", a.qkey);
  put(j, "path_mtu", a.path_mtu);
  put(j, "dest_qpn", a.dest_qpn);
  put(j, "rq_psn", a.rq_psn);
  put(j, "sq_psn", a.sq_psn);
  put(j, "timeout", a.timeout);
  put(j, "retry_cnt", a.retry_cnt);
  put(j, "rnr_retry", a.rnr_retry);
  put(j, "min_rnr_timer", a.min_rnr_timer);
  put(j, "max_rd_atomic", a.max_rd_atomic);
  put(j, "max_dest_rd_atomic", a.max_dest_rd_atomic);
  if (a.av) j["av"] = to_json(*a.av);
  put(j, "peer_mxcap", a.peer_mxcap);
  if (a.ev_set) {
    Json set = Json::array();
    for (const EvEntry& e : *a.ev_set) set.push_back({{"ev", e.ev}, {"plane", e.plane}});
    j["ev_set"] = std::move(set);
  }
  if (a.secure_sa) {
    const auto list = [](const std::vector<SecurityAssociation>& sas) {
      Json out = Json::array();
      for (const SecurityAssociation& s : sas)
        out.push_back({{"epoch", s.epoch}, {"key", s.key}, {"salt", s.salt}, {"spi", s.spi}});
      return out;
    };
    Json sa = {{"tx", list(a.secure_sa->tx)}, {"rx", list(a.secure_sa->rx)}};
    put(sa, "rekey_packets", a.secure_sa->rekey_packets);
    j["secure_sa"] = std::move(sa);
  }
  put(j, "secure_rotate", a.secure_rotate);
  return j;
}

Json to_json(const SendWr& wr) {
  Json j = {{"opcode", wr.opcode},
            {"sg_list", sg_json(wr.sg_list)},
            {"wr_id", wire::wide_integer(wr.wr_id)}};
  put(j, "signaled", wr.signaled);
  put(j, "solicited", wr.solicited);
  put(j, "imm_data", wr.imm_data);
  put(j, "invalidate_rkey", wr.invalidate_rkey);
  put_wide(j, "remote_addr", wr.remote_addr);
  put(j, "rkey", wr.rkey);
  put_wide(j, "compare_add", wr.compare_add);
  put_wide(j, "swap", wr.swap);
  if (wr.ud) {
    j["ud"] = {{"ah", to_json(wr.ud->ah)},
               {"remote_qpn", wr.ud->remote_qpn},
               {"remote_qkey", wr.ud->remote_qkey}};
  }
  return j;
}

Json to_json(const Completion& c) {
  Json j = {{"wr_id", wire::wide_integer(c.wr_id)},
            {"status", c.status},
            {"opcode", c.opcode},
            {"byte_len", c.byte_len},
            {"qp_num", c.qp_num}};
  put(j, "imm_data", c.imm_data);
  put(j, "invalidated_rkey", c.invalidated_rkey);
  put(j, "solicited", c.solicited);
  put(j, "src_qp", c.src_qp);
  put(j, "grh", c.grh);
  return j;
}

Json to_json(const DeviceIdentity& d) {
  return {{"name", d.name}, {"kind", d.kind}, {"vendor", d.vendor}, {"version", d.version}};
}

Json to_json(const Gid& g) { return {{"index", g.index}, {"gid", g.gid}, {"type", g.type}}; }

std::string to_hex(std::span<const uint8_t> bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s;
  s.reserve(bytes.size() * 2);
  for (const uint8_t b : bytes) {
    s.push_back(kDigits[b >> 4]);
    s.push_back(kDigits[b & 15]);
  }
  return s;
}

std::optional<std::vector<uint8_t>> from_hex(const std::string& hex) {
  auto digit = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  if (hex.size() % 2 != 0) return std::nullopt;
  std::vector<uint8_t> out(hex.size() / 2);
  for (size_t i = 0; i < out.size(); ++i) {
    const int hi = digit(hex[2 * i]);
    const int lo = digit(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out[i] = static_cast<uint8_t>(hi << 4 | lo);
  }
  return out;
}

Reply<Json> DutClient::send(Json request) {
  const std::string op = request["op"].get<std::string>();
  auto reply = send_(std::move(request));
  if (reply && !reply->is_object())
    return Unexpected(malformed_reply(op, "", "expected an object", *reply));
  return reply;
}

Reply<uint32_t> DutClient::create_pd() {
  auto reply = send({{"op", "create_pd"}});
  if (!reply) return Unexpected(reply.error());
  return handle("create_pd", *reply, "pd");
}

Reply<MemoryRegion> DutClient::reg_mr(const RegMr& req) {
  Json request = {{"op", "reg_mr"},
                  {"pd", req.pd},
                  {"length", wire::wide_integer(req.length)},
                  {"access", req.access}};
  put_wide(request, "va", req.va);
  auto reply = send(std::move(request));
  if (!reply) return Unexpected(reply.error());
  ReplyReader r("reg_mr", *reply);
  MemoryRegion mr;
  mr.lkey = static_cast<uint32_t>(r.number(*reply, "", "lkey", kU32));
  mr.rkey = static_cast<uint32_t>(r.number(*reply, "", "rkey", kU32));
  mr.va = r.number(*reply, "", "va");
  mr.length = r.number(*reply, "", "length");
  return finish(r, mr);
}

Reply<uint32_t> DutClient::create_cq(uint64_t depth) {
  auto reply = send({{"op", "create_cq"}, {"depth", depth}});
  if (!reply) return Unexpected(reply.error());
  return handle("create_cq", *reply, "cq");
}

Reply<uint32_t> DutClient::create_qp(const CreateQp& req) {
  Json request = {{"op", "create_qp"},
                  {"pd", req.pd},
                  {"send_cq", req.send_cq},
                  {"recv_cq", req.recv_cq},
                  {"type", req.type}};
  put(request, "srq", req.srq);
  put(request, "max_send_wr", req.max_send_wr);
  put(request, "max_recv_wr", req.max_recv_wr);
  auto reply = send(std::move(request));
  if (!reply) return Unexpected(reply.error());
  return handle("create_qp", *reply, "qpn");
}

Reply<void> DutClient::dereg_mr(uint32_t lkey) {
  return done(send({{"op", "dereg_mr"}, {"lkey", lkey}}));
}

Reply<void> DutClient::modify_qp(uint32_t qpn, const QpAttrs& attrs) {
  return done(send({{"op", "modify_qp"}, {"qpn", qpn}, {"attrs", to_json(attrs)}}));
}

Reply<QpInfo> DutClient::query_qp(uint32_t qpn) {
  auto reply = send({{"op", "query_qp"}, {"qpn", qpn}});
  if (!reply) return Unexpected(reply.error());
  ReplyReader r("query_qp", *reply);
  const Json& attrs = r.object(*reply, "", "attrs");
  QpInfo info;
  info.state = r.string(attrs, "attrs", "state");
  info.pkey = r.optional_number(attrs, "attrs", "pkey");
  info.path_mtu = r.optional_number(attrs, "attrs", "path_mtu");
  info.dest_qpn = r.optional_number(attrs, "attrs", "dest_qpn");
  info.rq_psn = r.optional_number(attrs, "attrs", "rq_psn");
  info.sq_psn = r.optional_number(attrs, "attrs", "sq_psn");
  info.qkey = r.optional_number(attrs, "attrs", "qkey");
  if (attrs.contains("ext_mode")) info.ext_mode = r.string(attrs, "attrs", "ext_mode");
  if (attrs.contains("ev_set")) info.ev_set = read_ev_set(r, attrs);
  info.cwnd = r.optional_number(attrs, "attrs", "cwnd");
  return finish(r, info);
}

Reply<void> DutClient::post_send(uint32_t qpn, const SendWr& wr) {
  return done(send({{"op", "post_send"}, {"qpn", qpn}, {"wr", to_json(wr)}}));
}

Reply<void> DutClient::post_recv(uint32_t qpn, const RecvWr& wr) {
  return done(send({{"op", "post_recv"},
                    {"qpn", qpn},
                    {"wr", {{"wr_id", wr.wr_id}, {"sg_list", sg_json(wr.sg_list)}}}}));
}

Reply<std::vector<Completion>> DutClient::poll_cq(uint32_t cq, uint64_t max, uint64_t timeout_ms) {
  auto reply = send({{"op", "poll_cq"}, {"cq", cq}, {"max", max}, {"timeout_ms", timeout_ms}});
  if (!reply) return Unexpected(reply.error());
  ReplyReader r("poll_cq", *reply);
  const Json& list = r.array(*reply, "", "completions");
  std::vector<Completion> out;
  for (size_t i = 0; i < list.size() && !r.error(); ++i)
    out.push_back(read_completion(r, list[i], element_path("completions", i)));
  return finish(r, std::move(out));
}

Reply<void> DutClient::req_notify_cq(uint32_t cq, bool solicited_only) {
  return done(send({{"op", "req_notify_cq"}, {"cq", cq}, {"solicited_only", solicited_only}}));
}

Reply<uint64_t> DutClient::get_cq_event(uint32_t cq, uint64_t timeout_ms) {
  auto reply = send({{"op", "get_cq_event"}, {"cq", cq}, {"timeout_ms", timeout_ms}});
  if (!reply) return Unexpected(reply.error());
  ReplyReader r("get_cq_event", *reply);
  const uint64_t events = r.number(*reply, "", "events");
  return finish(r, events);
}

Reply<std::vector<uint8_t>> DutClient::read_mem(uint32_t lkey, uint64_t va, uint64_t length) {
  auto reply = send(
      {{"op", "read_mem"}, {"lkey", lkey}, {"va", wire::wide_integer(va)}, {"length", length}});
  if (!reply) return Unexpected(reply.error());
  ReplyReader r("read_mem", *reply);
  const std::string data = r.string(*reply, "", "data");
  if (r.error()) return Unexpected(*r.error());
  auto bytes = from_hex(data);
  if (!bytes || bytes->size() != length) {
    r.fail("data", "expected " + std::to_string(length) + " bytes of hex");
    return Unexpected(*r.error());
  }
  return std::move(*bytes);
}

Reply<void> DutClient::write_mem(uint32_t lkey, uint64_t va, std::span<const uint8_t> data) {
  return done(send({{"op", "write_mem"},
                    {"lkey", lkey},
                    {"va", wire::wide_integer(va)},
                    {"data", to_hex(data)}}));
}

Reply<Counters> DutClient::counters() {
  auto reply = send({{"op", "counters"}});
  if (!reply) return Unexpected(reply.error());
  ReplyReader r("counters", *reply);
  const Json& all = r.object(*reply, "", "counters");
  Counters out;
  for (const auto& [name, value] : all.items())
    out[name] = r.number_value(value, member_path("counters", name));
  return finish(r, std::move(out));
}

Reply<void> DutClient::set_port(uint64_t plane, bool up) {
  return done(send({{"op", "set_port"}, {"plane", plane}, {"up", up}}));
}

Reply<std::string> DutClient::set_ev_state(uint32_t qpn, uint64_t ev, const std::string& state) {
  auto reply = send({{"op", "set_ev_state"}, {"qpn", qpn}, {"ev", ev}, {"state", state}});
  if (!reply) return Unexpected(reply.error());
  ReplyReader r("set_ev_state", *reply);
  std::string now = r.string(*reply, "", "state");
  return finish(r, std::move(now));
}

Reply<Capabilities> DutClient::capabilities() {
  auto reply = send({{"op", "capabilities"}});
  if (!reply) return Unexpected(reply.error());
  ReplyReader r("capabilities", *reply);
  Capabilities caps;
  const Json& device = r.object(*reply, "", "device");
  caps.device = {r.string(device, "device", "name"), r.string(device, "device", "kind"),
                 r.string(device, "device", "vendor"), r.string(device, "device", "version")};
  caps.mac = r.string(*reply, "", "mac");
  caps.ips = strings(r, *reply, "ips");
  const Json& gids = r.array(*reply, "", "gids");
  for (size_t i = 0; i < gids.size(); ++i) {
    const std::string path = element_path("gids", i);
    if (!r.is_object(gids[i], path)) break;
    caps.gids.push_back({r.number(gids[i], path, "index"), r.string(gids[i], path, "gid"),
                         r.string(gids[i], path, "type")});
  }
  const Json& mtus = r.array(*reply, "", "mtus");
  for (size_t i = 0; i < mtus.size(); ++i)
    caps.mtus.push_back(r.number_value(mtus[i], element_path("mtus", i)));
  // Optional: a script reads them as limits.NAME, and one the DUT does not state makes
  // that test inconclusive, not a failed reply.
  if (reply->contains("limits")) {
    for (const auto& [name, value] : r.object(*reply, "", "limits").items())
      caps.limits[name] = r.number_value(value, "limits." + name);
  }
  caps.pics = strings(r, *reply, "pics");
  const Json& mutants = r.array(*reply, "", "mutants");
  for (size_t i = 0; i < mutants.size(); ++i) {
    const std::string path = element_path("mutants", i);
    if (!r.is_object(mutants[i], path)) break;
    caps.mutants.push_back(r.string(mutants[i], path, "name"));
  }
  // A device without Part II sends no block.
  if (reply->contains("mxcap")) caps.mxcap = r.string(*reply, "", "mxcap");
  if (auto k = r.optional_number(*reply, "", "time_dilation", 1000)) {
    caps.time_dilation = static_cast<uint32_t>(std::max<uint64_t>(*k, 1));
  }
  return finish(r, std::move(caps));
}

Reply<void> DutClient::destroy(const std::string& kind, uint32_t handle) {
  return done(send({{"op", "destroy"}, {"kind", kind}, {"handle", handle}}));
}

Reply<void> DutClient::reset() { return done(send({{"op", "reset"}})); }

Reply<Json> DutClient::doctor() { return send({{"op", "doctor"}}); }

Reply<void> DutClient::bye() { return done(send({{"op", "bye"}})); }

Reply<void> DutClient::hello(const std::string& token, const std::string& client) {
  Json request = {{"op", "hello"}, {"protocol", kProtocolVersion}, {"client", client}};
  if (!token.empty()) request["token"] = token;
  return done(send(std::move(request)));
}

}  // namespace mr::protocol
