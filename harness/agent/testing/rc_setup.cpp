#include "harness/agent/testing/rc_setup.h"

#include <gtest/gtest.h>

namespace mr::agent::testing {

Call dispatcher_call(RequestDispatcher& dispatcher) {
  auto next_id = std::make_shared<uint64_t>(1);
  return [&dispatcher, next_id](std::string_view op, Json args) -> Json {
    Json request = {{"id", (*next_id)++}, {"op", op}};
    for (auto& [k, v] : args.items()) request[k] = v;
    const DispatchResult r = dispatcher.handle_line(serialize(request));
    Json reply = Json::parse(r.reply);
    EXPECT_TRUE(reply["ok"].get<bool>()) << serialize(request) << " -> " << r.reply;
    if (!reply["ok"].get<bool>()) return Json::object();
    reply.erase("id");
    reply.erase("ok");
    return reply;
  };
}

RcEnd create_rc_end(const Call& call, uint64_t va) {
  RcEnd e;
  e.pd = call("create_pd", Json::object()).value("pd", 0U);
  const Json mr = call("reg_mr", {{"pd", e.pd},
                                  {"length", 65536},
                                  {"va", va},
                                  {"access", {"LOCAL_WRITE", "REMOTE_WRITE", "REMOTE_READ"}}});
  e.lkey = mr.value("lkey", 0U);
  e.rkey = mr.value("rkey", 0U);
  e.va = mr.value("va", uint64_t{0});
  e.length = mr.value("length", uint64_t{0});
  e.cq = call("create_cq", {{"depth", 64}}).value("cq", 0U);
  e.qpn = call("create_qp", {{"pd", e.pd},
                             {"send_cq", e.cq},
                             {"recv_cq", e.cq},
                             {"type", "RC"},
                             {"max_send_wr", 16},
                             {"max_recv_wr", 16}})
              .value("qpn", 0U);
  return e;
}

void connect_rc(const Call& call, const RcEnd& self, uint32_t peer_qpn, const std::string& peer_mac,
                const std::string& peer_ip, const std::vector<std::string>& access,
                const std::string& peer_mxcap, const Json& rtr_extra) {
  call("modify_qp", {{"qpn", self.qpn},
                     {"attrs", {{"state", "INIT"}, {"pkey", 0xffff}, {"access_flags", access}}}});
  Json rtr = {{"state", "RTR"},
              {"path_mtu", 1024},
              {"dest_qpn", peer_qpn},
              {"rq_psn", 0x100},
              {"max_dest_rd_atomic", 4},
              {"min_rnr_timer", 1},
              {"av", {{"dmac", peer_mac}, {"dip", peer_ip}}}};
  if (!peer_mxcap.empty()) rtr["peer_mxcap"] = peer_mxcap;
  for (const auto& [key, value] : rtr_extra.items()) rtr[key] = value;
  call("modify_qp", {{"qpn", self.qpn}, {"attrs", std::move(rtr)}});
  call("modify_qp", {{"qpn", self.qpn},
                     {"attrs",
                      {{"state", "RTS"},
                       {"sq_psn", 0x100},
                       {"timeout", 14},
                       {"retry_cnt", 7},
                       {"rnr_retry", 7},
                       {"max_rd_atomic", 4}}}});
}

}  // namespace mr::agent::testing
