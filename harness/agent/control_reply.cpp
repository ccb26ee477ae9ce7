#include "harness/agent/control_reply.h"

#include <variant>

#include "harness/protocol/dut_client.h"
#include "reference/memory/access.h"
#include "reference/transport/qp_state.h"
#include "reference/wire/wide_integer.h"

namespace mr::agent {
namespace {

std::string ip_string(const transport::IpAddress& ip) {
  return std::visit([](const auto& a) { return a.to_string(); }, ip);
}

}  // namespace

Json ok_reply(uint64_t id, Json body) {
  Json reply = {{"id", id}, {"ok", true}};
  for (auto& [key, value] : body.items()) reply[key] = std::move(value);
  return reply;
}

Json error_reply(std::optional<uint64_t> id, const ControlError& error) {
  Json e = {{"code", to_string(error.code)}, {"message", error.message}};
  if (!error.field.empty()) e["field"] = error.field;
  Json reply;
  reply["id"] = id ? Json(*id) : Json(nullptr);
  reply["ok"] = false;
  reply["error"] = std::move(e);
  return reply;
}

std::string serialize(const Json& reply) {
  return reply.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::vector<std::string> access_names(uint32_t access) {
  std::vector<std::string> names;
  for (const auto& [bit, name] :
       {std::pair{memory::kLocalWrite, "LOCAL_WRITE"},
        std::pair{memory::kRemoteWrite, "REMOTE_WRITE"},
        std::pair{memory::kRemoteRead, "REMOTE_READ"},
        std::pair{memory::kRemoteAtomic, "REMOTE_ATOMIC"}, std::pair{memory::kMwBind, "MW_BIND"}}) {
    if ((access & bit) != 0) names.emplace_back(name);
  }
  return names;
}

Json to_json(const Capabilities& c) {
  Json gids = Json::array();
  for (const auto& g : c.gids) {
    gids.push_back({{"index", g.index}, {"gid", g.gid.to_string()}, {"type", g.type}});
  }
  Json limits = Json::object();
  for (const auto& l : c.limits) limits[l.name] = wire::wide_integer(l.value);
  Json mutants = Json::array();
  for (const auto& m : c.mutants) {
    mutants.push_back({{"name", m.name}, {"clauses", m.clauses}, {"description", m.description}});
  }
  Json j = {{"device",
             {{"name", c.device_name},
              {"kind", c.device_kind},
              {"vendor", c.vendor},
              {"version", c.version}}},
            {"mac", c.mac.to_string()},
            {"ips", c.ips},
            {"gids", std::move(gids)},
            {"mtus", c.mtus},
            {"limits", std::move(limits)},
            {"pics", c.pics},
            {"mutants", std::move(mutants)}};
  if (!c.mxcap.empty()) j["mxcap"] = to_hex(c.mxcap);
  // Only a dilated device says so: every other runs on the real clock.
  if (c.time_dilation > 1) j["time_dilation"] = c.time_dilation;
  return j;
}

Json to_json(const MrResult& mr) {
  return {{"lkey", mr.lkey},
          {"rkey", mr.rkey},
          {"va", wire::wide_integer(mr.va)},
          {"length", wire::wide_integer(mr.length)}};
}

Json to_json(const transport::QpAttributes& a) {
  Json av = {{"smac", a.av.smac.to_string()},       {"dmac", a.av.dmac.to_string()},
             {"sip", ip_string(a.av.sip)},          {"dip", ip_string(a.av.dip)},
             {"traffic_class", a.av.traffic_class}, {"hop_limit", a.av.hop_limit},
             {"flow_label", a.av.flow_label},       {"udp_sport", a.av.udp_sport},
             {"vlan_prio", a.av.vlan_prio}};
  if (a.av.vlan_id) av["vlan_id"] = *a.av.vlan_id;
  Json j = {{"state", transport::to_string(a.state)},
            {"access_flags", access_names(a.access_flags)},
            {"pkey", a.pkey},
            {"path_mtu", a.path_mtu},
            {"dest_qpn", a.dest_qpn},
            {"rq_psn", a.rq_psn},
            {"sq_psn", a.sq_psn},
            {"timeout", a.timeout},
            {"retry_cnt", a.retry_cnt},
            {"rnr_retry", a.rnr_retry},
            {"min_rnr_timer", a.min_rnr_timer},
            {"max_rd_atomic", a.max_rd_atomic},
            {"max_dest_rd_atomic", a.max_dest_rd_atomic},
            {"qkey", a.qkey},
            {"av", std::move(av)},
            {"ext_mode", a.ext_mode ? "EXT" : "BASE"}};
  if (a.peer_mxcap) j["peer_mxcap"] = to_hex(a.peer_mxcap->bytes());
  if (a.cwnd) j["cwnd"] = *a.cwnd;
  if (a.ev_set) {
    // An Ext QP's entries carry their state; a base QP's set is the one given, unused.
    Json set = Json::array();
    for (size_t i = 0; i < a.ev_set->size(); ++i) {
      const transport::ext::EvEntry& e = (*a.ev_set)[i];
      Json entry = {{"ev", e.ev}, {"plane", e.plane}};
      if (i < a.ev_states.size()) entry["state"] = transport::ext::to_string(a.ev_states[i]);
      set.push_back(std::move(entry));
    }
    j["ev_set"] = std::move(set);
  }
  return j;
}

Json to_json(const transport::Completion& c) {
  Json j = {{"wr_id", wire::wide_integer(c.wr_id)},
            {"status", transport::to_string(c.status)},
            {"opcode", transport::to_string(c.opcode)},
            {"byte_len", c.byte_len},
            {"qp_num", c.qp_num}};
  if (c.imm_data) j["imm_data"] = *c.imm_data;
  if (c.invalidated_rkey) j["invalidated_rkey"] = *c.invalidated_rkey;
  if (c.solicited) j["solicited"] = true;
  if (c.src_qp) j["src_qp"] = *c.src_qp;
  if (c.grh) j["grh"] = true;
  return j;
}

Json to_json(const std::vector<Counter>& counters) {
  Json j = Json::object();
  for (const auto& c : counters) j[c.name] = wire::wide_integer(c.value);
  return j;
}

// The protocol's one hex encoding (read_mem replies, write_mem requests).
std::string to_hex(const std::vector<uint8_t>& bytes) { return protocol::to_hex(bytes); }

}  // namespace mr::agent
