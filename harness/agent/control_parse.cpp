#include "harness/agent/control_parse.h"

#include <array>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "reference/memory/access.h"
#include "reference/transport/qp_state.h"
#include "reference/wire/mxcap.h"

namespace mr::agent {
namespace {

constexpr std::array<std::pair<std::string_view, uint32_t>, 5> kAccessNames{{
    {"LOCAL_WRITE", memory::kLocalWrite},
    {"REMOTE_WRITE", memory::kRemoteWrite},
    {"REMOTE_READ", memory::kRemoteRead},
    {"REMOTE_ATOMIC", memory::kRemoteAtomic},
    {"MW_BIND", memory::kMwBind},
}};

std::string index_path(const std::string& path, size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

Result<transport::SgeList> parse_sg_list(ObjectReader& r) {
  auto list = r.array("sg_list", kMaxSge);
  if (!list) return Unexpected(list.error());
  transport::SgeList sges;
  const std::string path = field_path(r.path(), "sg_list");
  for (size_t i = 0; i < (*list)->size(); ++i) {
    ObjectReader s((**list)[i], index_path(path, i));
    auto addr = s.u64("addr");
    if (!addr) return Unexpected(addr.error());
    auto length = s.u32("length", 0x80000000U);
    if (!length) return Unexpected(length.error());
    auto lkey = s.u32("lkey");
    if (!lkey) return Unexpected(lkey.error());
    if (auto done = s.finish(); !done) return Unexpected(done.error());
    sges.push_back({*addr, *length, *lkey});
  }
  return sges;
}

Result<transport::IpAddress> parse_ip(const nlohmann::json* value, const std::string& path) {
  if (value == nullptr || !value->is_string()) {
    return control_error(ErrorCode::kEinval, "must be an IPv4 or IPv6 address string", path);
  }
  const auto& s = value->get_ref<const std::string&>();
  if (auto v4 = wire::Ipv4Address::parse(s)) return transport::IpAddress(*v4);
  if (auto v6 = wire::Ipv6Address::parse(s)) return transport::IpAddress(*v6);
  return control_error(ErrorCode::kEinval, "not an IPv4 or IPv6 address", path);
}

// Reads an optional unsigned attribute into `out` and sets `bit` in `mask` when present.
template <class T>
Result<void> optional_attr(ObjectReader& r, std::string_view key, uint64_t max, T& out,
                           uint32_t& mask, uint32_t bit) {
  auto v = r.optional_u64(key, max);
  if (!v) return Unexpected(v.error());
  if (*v) {
    out = static_cast<T>(**v);
    mask |= bit;
  }
  return {};
}

}  // namespace

Result<uint32_t> parse_access_list(const nlohmann::json& list, const std::string& path,
                                   uint32_t allowed) {
  if (!list.is_array()) {
    return control_error(ErrorCode::kEinval, "must be an array of access flag names", path);
  }
  if (list.size() > kAccessNames.size()) {
    return control_error(ErrorCode::kEinval, "too many access flags", path);
  }
  uint32_t bits = 0;
  for (size_t i = 0; i < list.size(); ++i) {
    const auto& item = list[i];
    uint32_t bit = 0;
    if (item.is_string()) {
      for (const auto& [name, value] : kAccessNames) {
        if (item.get_ref<const std::string&>() == name) bit = value;
      }
    }
    if (bit == 0 || (bit & allowed) == 0) {
      return control_error(ErrorCode::kEinval, "unknown or not allowed access flag",
                           index_path(path, i));
    }
    bits |= bit;
  }
  return bits;
}

Result<std::vector<uint8_t>> parse_hex(const nlohmann::json& value, const std::string& path,
                                       size_t max_bytes) {
  if (!value.is_string()) return control_error(ErrorCode::kEinval, "must be a hex string", path);
  const auto& s = value.get_ref<const std::string&>();
  if (s.size() % 2 != 0) return control_error(ErrorCode::kEinval, "odd number of hex digits", path);
  if (s.size() / 2 > max_bytes) {
    return control_error(ErrorCode::kEinval, "more than " + std::to_string(max_bytes) + " bytes",
                         path);
  }
  std::vector<uint8_t> bytes(s.size() / 2);
  for (size_t i = 0; i < bytes.size(); ++i) {
    const int hi = hex_digit(s[2 * i]);
    const int lo = hex_digit(s[2 * i + 1]);
    if (hi < 0 || lo < 0) return control_error(ErrorCode::kEinval, "not a hex digit", path);
    bytes[i] = static_cast<uint8_t>(hi << 4 | lo);
  }
  return bytes;
}

Result<transport::SendWr> parse_send_wr(const nlohmann::json& json, const std::string& path) {
  ObjectReader r(json, path);
  transport::SendWr wr;
  auto opcode = r.string("opcode", 32);
  if (!opcode) return Unexpected(opcode.error());
  if (!transport::send_opcode_from_string(*opcode, wr.opcode)) {
    return control_error(ErrorCode::kEinval, "unknown opcode", field_path(path, "opcode"));
  }
  auto wr_id = r.u64_or("wr_id", 0);
  if (!wr_id) return Unexpected(wr_id.error());
  wr.wr_id = *wr_id;
  auto sges = parse_sg_list(r);
  if (!sges) return Unexpected(sges.error());
  wr.sg_list = std::move(*sges);
  auto signaled = r.boolean_or("signaled", true);
  if (!signaled) return Unexpected(signaled.error());
  wr.signaled = *signaled;
  auto solicited = r.boolean_or("solicited", false);
  if (!solicited) return Unexpected(solicited.error());
  wr.solicited = *solicited;
  struct U32Field {
    std::string_view key;
    uint32_t* out;
  };
  for (const auto& [key, out] :
       {U32Field{"imm_data", &wr.imm_data}, U32Field{"invalidate_rkey", &wr.invalidate_rkey},
        U32Field{"rkey", &wr.rkey}}) {
    auto v = r.u64_or(key, 0, 0xffffffff);
    if (!v) return Unexpected(v.error());
    *out = static_cast<uint32_t>(*v);
  }
  struct U64Field {
    std::string_view key;
    uint64_t* out;
  };
  for (const auto& [key, out] :
       {U64Field{"remote_addr", &wr.remote_addr}, U64Field{"compare_add", &wr.compare_add},
        U64Field{"swap", &wr.swap}}) {
    auto v = r.u64_or(key, 0);
    if (!v) return Unexpected(v.error());
    *out = *v;
  }
  if (r.has("ud")) {
    auto ud_json = r.object("ud");
    if (!ud_json) return Unexpected(ud_json.error());
    auto ud = parse_ud_destination(**ud_json, field_path(path, "ud"));
    if (!ud) return Unexpected(ud.error());
    wr.ud = *ud;
  }
  if (auto done = r.finish(); !done) return Unexpected(done.error());
  return wr;
}

Result<transport::UdDestination> parse_ud_destination(const nlohmann::json& json,
                                                      const std::string& path) {
  ObjectReader r(json, path);
  transport::UdDestination d;
  auto ah_json = r.object("ah");
  if (!ah_json) return Unexpected(ah_json.error());
  auto ah = parse_av(**ah_json, field_path(path, "ah"));
  if (!ah) return Unexpected(ah.error());
  // What the client left out stays zero: the backend fills in its own MAC and IP and looks
  // the destination MAC up, as for a connected QP's address vector.
  d.ah.dmac = ah->dmac.value_or(wire::MacAddress{});
  d.ah.dip = ah->dip;
  d.ah.sip = ah->sip.value_or(ah->dip.index() == 0 ? transport::IpAddress(wire::Ipv4Address{})
                                                   : transport::IpAddress(wire::Ipv6Address{}));
  d.ah.traffic_class = ah->traffic_class;
  d.ah.hop_limit = ah->hop_limit;
  d.ah.flow_label = ah->flow_label;
  d.ah.udp_sport = ah->udp_sport;
  d.ah.vlan_id = ah->vlan_id;
  d.ah.vlan_prio = ah->vlan_prio;
  auto qpn = r.u32("remote_qpn", 0xffffff);
  if (!qpn) return Unexpected(qpn.error());
  d.remote_qpn = *qpn;
  auto qkey = r.u32("remote_qkey");
  if (!qkey) return Unexpected(qkey.error());
  d.remote_qkey = *qkey;
  if (auto done = r.finish(); !done) return Unexpected(done.error());
  return d;
}

Result<transport::RecvWr> parse_recv_wr(const nlohmann::json& json, const std::string& path) {
  ObjectReader r(json, path);
  transport::RecvWr wr;
  auto wr_id = r.u64_or("wr_id", 0);
  if (!wr_id) return Unexpected(wr_id.error());
  wr.wr_id = *wr_id;
  auto sges = parse_sg_list(r);
  if (!sges) return Unexpected(sges.error());
  wr.sg_list = std::move(*sges);
  if (auto done = r.finish(); !done) return Unexpected(done.error());
  return wr;
}

Result<AvArgs> parse_av(const nlohmann::json& json, const std::string& path) {
  ObjectReader r(json, path);
  AvArgs av;
  if (const nlohmann::json* dmac = r.member("dmac")) {
    auto mac = dmac->is_string() ? wire::MacAddress::parse(dmac->get_ref<const std::string&>())
                                 : std::nullopt;
    if (!mac)
      return control_error(ErrorCode::kEinval, "not a MAC address", field_path(path, "dmac"));
    av.dmac = *mac;
  }
  auto dip = parse_ip(r.member("dip"), field_path(path, "dip"));
  if (!dip) return Unexpected(dip.error());
  av.dip = *dip;
  if (const nlohmann::json* sip = r.member("sip")) {
    auto ip = parse_ip(sip, field_path(path, "sip"));
    if (!ip) return Unexpected(ip.error());
    if (ip->index() != av.dip.index()) {
      return control_error(ErrorCode::kEinval, "sip and dip must both be IPv4 or both IPv6",
                           field_path(path, "sip"));
    }
    av.sip = *ip;
  }
  uint32_t ignored = 0;
  for (auto result : {optional_attr(r, "traffic_class", 0xff, av.traffic_class, ignored, 0),
                      optional_attr(r, "hop_limit", 0xff, av.hop_limit, ignored, 0),
                      optional_attr(r, "flow_label", 0xfffff, av.flow_label, ignored, 0),
                      optional_attr(r, "udp_sport", 0xffff, av.udp_sport, ignored, 0),
                      optional_attr(r, "vlan_prio", 7, av.vlan_prio, ignored, 0)}) {
    if (!result) return Unexpected(result.error());
  }
  auto vlan = r.optional_u64("vlan_id", 4094);
  if (!vlan) return Unexpected(vlan.error());
  if (*vlan) av.vlan_id = static_cast<uint16_t>(**vlan);
  if (auto done = r.finish(); !done) return Unexpected(done.error());
  return av;
}

Result<std::vector<transport::ext::EvEntry>> parse_ev_set(const nlohmann::json& list,
                                                          const std::string& path) {
  using transport::ext::EvTable;
  if (!list.is_array() || list.empty() || list.size() > EvTable::kMaxEntries) {
    return control_error(ErrorCode::kEinval, "must be an array of 1 to 4096 {ev, plane} objects",
                         path);
  }
  std::vector<transport::ext::EvEntry> set;
  set.reserve(list.size());
  std::unordered_map<uint16_t, size_t> first;  // EV -> the index it was first listed at
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string entry_path = index_path(path, i);
    ObjectReader e(list[i], entry_path);
    auto ev = e.u32("ev", 0xffff);
    if (!ev) return Unexpected(ev.error());
    if (*ev == 0) {
      return control_error(ErrorCode::kEinval, "0 is not an entropy value (1 to 65535)",
                           field_path(entry_path, "ev"));
    }
    auto plane = e.u32("plane", EvTable::kMaxPlanes - 1);
    if (!plane) return Unexpected(plane.error());
    if (auto done = e.finish(); !done) return Unexpected(done.error());
    const auto [at, fresh] = first.emplace(static_cast<uint16_t>(*ev), i);
    if (!fresh) {
      return control_error(
          ErrorCode::kEinval,
          std::to_string(*ev) + " is listed twice (first at " + index_path(path, at->second) + ")",
          field_path(entry_path, "ev"));
    }
    set.push_back({.ev = static_cast<uint16_t>(*ev), .plane = static_cast<uint8_t>(*plane)});
  }
  return set;
}

namespace {

Result<std::vector<transport::ext::SecurityAssociation>> parse_sa_list(const nlohmann::json& list,
                                                                       const std::string& path) {
  constexpr size_t kMaxEpochs = 4;  // the current, the next, and room to install ahead
  if (!list.is_array() || list.size() > kMaxEpochs) {
    return control_error(ErrorCode::kEinval,
                         "must be an array of at most 4 {epoch, key, salt, spi} objects", path);
  }
  std::vector<transport::ext::SecurityAssociation> sas;
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string entry_path = index_path(path, i);
    ObjectReader e(list[i], entry_path);
    transport::ext::SecurityAssociation sa;
    auto epoch = e.u32("epoch", 0xffff);
    if (!epoch) return Unexpected(epoch.error());
    sa.epoch = static_cast<uint16_t>(*epoch);
    auto spi = e.u32("spi");
    if (!spi) return Unexpected(spi.error());
    sa.spi = *spi;
    for (const auto& [name, size] : {std::pair{"key", sa.key.size()}, {"salt", sa.salt.size()}}) {
      const std::string field = field_path(entry_path, name);
      const nlohmann::json* v = e.member(name);
      if (v == nullptr) return control_error(ErrorCode::kEinval, "missing", field);
      auto bytes = parse_hex(*v, field, size);
      if (!bytes) return Unexpected(bytes.error());
      if (bytes->size() != size) {
        return control_error(ErrorCode::kEinval,
                             "must be " + std::to_string(size) + " bytes (" +
                                 std::to_string(2 * size) + " hex digits), got " +
                                 std::to_string(bytes->size()),
                             field);
      }
      std::copy(bytes->begin(), bytes->end(),
                std::string_view(name) == "key" ? sa.key.begin() : sa.salt.begin());
    }
    if (auto done = e.finish(); !done) return Unexpected(done.error());
    for (size_t j = 0; j < sas.size(); ++j) {
      if (sas[j].epoch == sa.epoch) {
        return control_error(ErrorCode::kEinval,
                             "epoch " + std::to_string(sa.epoch) + " is listed twice (first at " +
                                 index_path(path, j) + ")",
                             field_path(entry_path, "epoch"));
      }
    }
    sas.push_back(sa);
  }
  return sas;
}

}  // namespace

Result<transport::ext::SecurityAssociations> parse_secure_sa(const nlohmann::json& object,
                                                             const std::string& path) {
  ObjectReader r(object, path);
  transport::ext::SecurityAssociations sas;
  for (const char* direction : {"tx", "rx"}) {
    if (const nlohmann::json* list = r.member(direction)) {
      auto parsed = parse_sa_list(*list, field_path(path, direction));
      if (!parsed) return Unexpected(parsed.error());
      (std::string_view(direction) == "tx" ? sas.tx : sas.rx) = std::move(*parsed);
    }
  }
  // Section 30's range of N_SE_REKEY_PACKETS.
  auto rekey = r.optional_u64("rekey_packets", uint64_t{1} << 48);
  if (!rekey) return Unexpected(rekey.error());
  if (*rekey && **rekey < 16) {
    return control_error(ErrorCode::kEinval, "must be 16 to 2^48 packets (N_SE_REKEY_PACKETS)",
                         field_path(path, "rekey_packets"));
  }
  sas.rekey_packets = rekey->value_or(0);
  if (auto done = r.finish(); !done) return Unexpected(done.error());
  return sas;
}

Result<ModifyQpArgs> parse_modify_qp_attrs(uint32_t qpn, const nlohmann::json& json,
                                           const std::string& path) {
  ObjectReader r(json, path);
  ModifyQpArgs args;
  args.qpn = qpn;
  transport::QpAttributes& a = args.attr;
  uint32_t& mask = args.mask;
  if (r.has("state")) {
    auto state = r.string("state", 16);
    if (!state) return Unexpected(state.error());
    if (!transport::qp_state_from_string(*state, a.state)) {
      return control_error(ErrorCode::kEinval, "not RESET, INIT, RTR, RTS, SQD or ERROR",
                           field_path(path, "state"));
    }
    mask |= transport::kAttrState;
  }
  if (const nlohmann::json* access = r.member("access_flags")) {
    auto bits = parse_access_list(*access, field_path(path, "access_flags"),
                                  memory::kLocalWrite | memory::kRemoteAccess);
    if (!bits) return Unexpected(bits.error());
    a.access_flags = *bits;
    mask |= transport::kAttrAccessFlags;
  }
  constexpr uint64_t k24 = 0xffffff;
  for (auto result : {
           optional_attr(r, "pkey", 0xffff, a.pkey, mask, transport::kAttrPkey),
           optional_attr(r, "path_mtu", 4096, a.path_mtu, mask, transport::kAttrPathMtu),
           optional_attr(r, "dest_qpn", k24, a.dest_qpn, mask, transport::kAttrDestQpn),
           optional_attr(r, "rq_psn", k24, a.rq_psn, mask, transport::kAttrRqPsn),
           optional_attr(r, "sq_psn", k24, a.sq_psn, mask, transport::kAttrSqPsn),
           optional_attr(r, "timeout", 31, a.timeout, mask, transport::kAttrTimeout),
           optional_attr(r, "retry_cnt", 7, a.retry_cnt, mask, transport::kAttrRetryCnt),
           optional_attr(r, "rnr_retry", 7, a.rnr_retry, mask, transport::kAttrRnrRetry),
           optional_attr(r, "min_rnr_timer", 31, a.min_rnr_timer, mask,
                         transport::kAttrMinRnrTimer),
           optional_attr(r, "max_rd_atomic", 255, a.max_rd_atomic, mask,
                         transport::kAttrMaxRdAtomic),
           optional_attr(r, "max_dest_rd_atomic", 255, a.max_dest_rd_atomic, mask,
                         transport::kAttrMaxDestRdAtomic),
           optional_attr(r, "qkey", 0xffffffff, a.qkey, mask, transport::kAttrQkey),
       }) {
    if (!result) return Unexpected(result.error());
  }
  if ((mask & transport::kAttrPathMtu) != 0) {
    const uint32_t m = a.path_mtu;
    if (m != 256 && m != 512 && m != 1024 && m != 2048 && m != 4096) {
      return control_error(ErrorCode::kEinval, "must be 256, 512, 1024, 2048 or 4096",
                           field_path(path, "path_mtu"));
    }
  }
  if (const nlohmann::json* block = r.member("peer_mxcap")) {
    // The peer's MXCAP block as the CM private data carries it (section 18), in hex.
    const std::string field = field_path(path, "peer_mxcap");
    auto bytes = parse_hex(*block, field, 256);
    if (!bytes) return Unexpected(bytes.error());
    auto mxcap = wire::Mxcap::parse(*bytes);
    if (!mxcap) return control_error(ErrorCode::kEinval, mxcap.error().to_string(), field);
    a.peer_mxcap = *mxcap;
    mask |= transport::kAttrPeerMxcap;
  }
  if (const nlohmann::json* list = r.member("ev_set")) {
    auto set = parse_ev_set(*list, field_path(path, "ev_set"));
    if (!set) return Unexpected(set.error());
    a.ev_set = std::move(*set);
    mask |= transport::kAttrEvSet;
  }
  if (const nlohmann::json* sa = r.member("secure_sa")) {
    auto sas = parse_secure_sa(*sa, field_path(path, "secure_sa"));
    if (!sas) return Unexpected(sas.error());
    a.secure_sa = std::move(*sas);
    mask |= transport::kAttrSecureSa;
  }
  if (r.has("secure_rotate")) {
    auto rotate = r.boolean("secure_rotate");
    if (!rotate) return Unexpected(rotate.error());
    if (*rotate) mask |= transport::kAttrSecureRotate;
  }
  if (r.has("av")) {
    auto av_json = r.object("av");
    if (!av_json) return Unexpected(av_json.error());
    auto av = parse_av(**av_json, field_path(path, "av"));
    if (!av) return Unexpected(av.error());
    args.av = *av;
    mask |= transport::kAttrAddress;
  }
  if (auto done = r.finish(); !done) return Unexpected(done.error());
  if (mask == 0) return control_error(ErrorCode::kEinval, "no attribute given", path);
  return args;
}

}  // namespace mr::agent
