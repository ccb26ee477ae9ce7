#include "tools/oracles/scapy_expression.h"

#include <algorithm>
#include <cstdio>
#include <string_view>
#include <utility>

#include "harness/engine/evaluate.h"
#include "reference/wire/frame_decoder.h"
#include "reference/wire/opcode.h"

namespace mr::oracles {
namespace {

using engine::SynthesisError;
using script::Expr;
using script::FieldArg;
using script::Layer;

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

// A Python literal: b"..." (or "..." for an address), printable ASCII kept.
std::string literal(std::string_view s, bool as_string) {
  std::string out = as_string ? "\"" : "b\"";
  for (const unsigned char c : s) {
    if (c == '\\' || c == '"') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  return out + "\"";
}

bool gives(const Layer* l, std::string_view field) {
  return l != nullptr &&
         std::ranges::any_of(l->args, [&](const FieldArg& a) { return a.name == field; });
}

const Layer* find(const script::PacketExpr& p, std::string_view name) {
  auto it = std::ranges::find_if(p.layers, [&](const Layer& l) { return l.name == name; });
  return it == p.layers.end() ? nullptr : &*it;
}

// What a `>` line checks, as a packet to build: `*` fields are left to the builder and
// Raw(len=N) (a harness extension Scapy lacks) becomes N zero bytes.
void as_expected_packet(script::PacketExpr& p) {
  for (Layer& l : p.layers) {
    std::erase_if(l.args, [](const FieldArg& a) { return a.value.kind == Expr::Kind::kWildcard; });
    if (l.name != "Raw") continue;
    for (FieldArg& a : l.args) {
      if (a.name != "len") continue;
      Expr n = std::move(a.value);
      a.value = Expr{};
      a.value.kind = Expr::Kind::kBytesOfLength;
      a.value.pos = n.pos;
      a.value.lhs = std::make_unique<Expr>(std::move(n));
      a.name = "load";
    }
  }
}

// The engine's connection for `c`. UD, IPv6 and VLAN connections are newer than this
// tool's first version; where the engine lacks one, a script that needs it is an error.
Expected<engine::ConnectionDefaults, std::string> engine_connection(const Connection& c) {
  engine::ConnectionDefaults e = c.base;
  if (c.qkey) {
    if constexpr (requires { e.qkey = *c.qkey; }) {
      e.qkey = *c.qkey;
    } else {
      return Unexpected(std::string("the engine has no UD connections"));
    }
  }
  if (c.ipv6()) {
    if constexpr (requires { e.tester_ip6 = *c.tester_ip6; }) {
      e.tester_ip6 = *c.tester_ip6;
      e.dut_ip6 = *c.dut_ip6;
    } else {
      return Unexpected(std::string("the engine has no IPv6 connections"));
    }
  }
  e.ext = c.ext;
  if (c.vlan) {
    if constexpr (requires { e.vlan = *c.vlan; }) {
      e.vlan = *c.vlan;
      e.pcp = c.pcp;
    } else {
      return Unexpected(std::string("the engine has no VLAN connections"));
    }
  }
  return e;
}

// The opcode a BTH layer names (0 if none or not a number).
uint64_t opcode_of(const Layer* bth, const engine::SymbolTable& symbols) {
  if (bth == nullptr) return 0;
  for (const FieldArg& a : bth->args) {
    if (a.name != "opcode") continue;
    auto v = engine::evaluate_number(a.value, symbols);
    return v ? *v : 0;
  }
  return 0;
}

// One layer of the Scapy expression: the script's fields, then the filled ones.
class LayerText {
 public:
  explicit LayerText(std::string name) : name_(std::move(name)) {}

  // Every field the script gives but `skip` (a harness-only field Scapy lacks).
  Expected<void, SynthesisError> add_script_fields(const Layer& l,
                                                   const engine::SymbolTable& symbols,
                                                   std::string_view skip = {}) {
    const bool addresses = l.name == "Ether" || l.name == "IP" || l.name == "IPv6";
    for (const FieldArg& a : l.args) {
      if (a.name == skip) continue;
      const bool as_string = addresses && (a.name == "src" || a.name == "dst");
      // Scapy types SACKETH.sack_offset signed (-8); a script writes its 16 wire bits (0xfff8).
      if (l.name == "SACKETH" && a.name == "sack_offset") {
        if (auto n = engine::evaluate_number(a.value, symbols)) {
          fields_.push_back(a.name + "=" + std::to_string(static_cast<int16_t>(*n)));
          continue;
        }
      }
      auto v = python_text(a.value, symbols, as_string);
      if (!v) return Unexpected(SynthesisError{a.pos, l.name + "." + a.name + ": " + v.error()});
      fields_.push_back(a.name + "=" + *v);
    }
    return {};
  }
  void add(const std::string& field, const std::string& value) {
    fields_.push_back(field + "=" + value);
  }
  std::string text() const {
    std::string s = name_ + "(";
    for (size_t i = 0; i < fields_.size(); ++i) s += (i ? ", " : "") + fields_[i];
    return s + ")";
  }
  const std::string& name() const { return name_; }

 private:
  std::string name_;
  std::vector<std::string> fields_;
};

// The payload length the builder pads: the Raw loads of the script.
Expected<size_t, SynthesisError> payload_size(const script::PacketExpr& p,
                                              const engine::SymbolTable& symbols) {
  size_t n = 0;
  for (const Layer& l : p.layers) {
    if (l.name != "Raw") continue;
    for (const FieldArg& a : l.args) {
      auto b = engine::evaluate_bytes(a.value, symbols);
      if (!b) return Unexpected(SynthesisError{a.pos, "Raw." + a.name + ": " + b.error()});
      n += b->size();
    }
  }
  return n;
}

// The pad count the builder writes: the script's, or what pads the payload to 4 bytes.
Expected<uint64_t, SynthesisError> pad_count(const Layer* bth, size_t payload,
                                             const engine::SymbolTable& symbols) {
  if (bth != nullptr) {
    for (const FieldArg& a : bth->args) {
      if (a.name != "padcount") continue;
      auto v = engine::evaluate_number(a.value, symbols);
      if (!v) return Unexpected(SynthesisError{a.pos, "BTH.padcount: " + v.error()});
      return *v & 3;
    }
  }
  return (4 - payload % 4) % 4;
}

}  // namespace

Expected<std::string, std::string> python_text(const Expr& e, const engine::SymbolTable& symbols,
                                               bool as_string) {
  switch (e.kind) {
    case Expr::Kind::kNumber:
      return hex(e.number);
    case Expr::Kind::kSymbol:
    case Expr::Kind::kName: {
      if (e.text == "None") return std::string("None");
      // Enum names stay names (Python binds them from Scapy's tables where it has them).
      if (e.kind == Expr::Kind::kName && engine::enum_value(e.text)) return e.text;
      if (auto v = symbols.get(e.text)) return hex(*v);
      if (engine::enum_value(e.text)) return e.text;
      return Unexpected("unknown symbol '" + e.text + "'");
    }
    case Expr::Kind::kBinary: {
      auto l = python_text(*e.lhs, symbols);
      if (!l) return l;
      auto r = python_text(*e.rhs, symbols);
      if (!r) return r;
      return "(" + *l + " " + e.op + " " + *r + ")";
    }
    case Expr::Kind::kBytes:
      return literal(e.bytes, as_string);
    case Expr::Kind::kBytesOfLength: {
      auto n = python_text(*e.lhs, symbols);
      if (!n) return n;
      return "bytes(" + *n + ")";
    }
    case Expr::Kind::kWildcard:
      return Unexpected(std::string("'*' has no Scapy value"));
    case Expr::Kind::kList:
      return Unexpected(std::string("a list has no Scapy value"));
  }
  return Unexpected(std::string("bad expression"));
}

Connection Connection::reversed() const {
  Connection r = *this;
  std::swap(r.base.tester_mac, r.base.dut_mac);
  std::swap(r.base.tester_ip, r.base.dut_ip);
  std::swap(r.tester_ip6, r.dut_ip6);
  std::swap(r.base.dut_qpn, r.base.tester_qpn);
  // The DUT QP's UDP source port, as the engine gives it at create_qp.
  r.base.udp_sport = static_cast<uint16_t>(0xc000 | (base.dut_qpn & 0x3fff));
  if (qkey) {
    r.qkey = tester_qkey;
    r.tester_qkey = *qkey;
  }
  return r;
}

namespace {

// One lower layer, with the script's fields and then what the engine fills where the script
// is silent (`fill`).
template <class Fill>
Expected<void, SynthesisError> add_lower(std::vector<LayerText>& out, const script::PacketExpr& p,
                                         const engine::SymbolTable& symbols, const char* name,
                                         Fill&& fill) {
  const Layer* given = find(p, name);
  LayerText& t = out.emplace_back(name);
  if (given != nullptr) {
    if (auto ok = t.add_script_fields(*given, symbols); !ok) return ok;
  }
  fill(t, given);
  return {};
}

// Ether, Dot1Q, IP or IPv6, and UDP, in wire order.
Expected<void, SynthesisError> add_lower_layers(std::vector<LayerText>& out,
                                                const script::PacketExpr& p, const Connection& conn,
                                                const engine::ConnectionDefaults& c,
                                                const engine::SymbolTable& symbols) {
  auto ok = add_lower(out, p, symbols, "Ether", [&](LayerText& t, const Layer* l) {
    if (!gives(l, "dst")) t.add("dst", literal(c.dut_mac.to_string(), true));
    if (!gives(l, "src")) t.add("src", literal(c.tester_mac.to_string(), true));
  });
  if (ok && (conn.vlan || find(p, "Dot1Q") != nullptr)) {
    ok = add_lower(out, p, symbols, "Dot1Q", [&](LayerText& t, const Layer* l) {
      if (!gives(l, "prio")) t.add("prio", hex(conn.pcp));
      // Without a VLAN a tag is a priority tag, VID 0 (Scapy's Dot1Q() says VLAN 1).
      if (!gives(l, "vlan")) t.add("vlan", hex(conn.vlan.value_or(0)));
    });
  }
  // IPv6 where the script writes it, or where the connection is IPv6 and the script
  // writes no IP layer.
  const bool ip6 = find(p, "IPv6") != nullptr || (conn.ipv6() && find(p, "IP") == nullptr);
  if (ok && ip6) {
    ok = add_lower(out, p, symbols, "IPv6", [&](LayerText& t, const Layer* l) {
      if (!conn.ipv6()) return;
      if (!gives(l, "src")) t.add("src", literal(conn.tester_ip6->to_string(), true));
      if (!gives(l, "dst")) t.add("dst", literal(conn.dut_ip6->to_string(), true));
    });
  } else if (ok) {
    ok = add_lower(out, p, symbols, "IP", [&](LayerText& t, const Layer* l) {
      if (!gives(l, "src")) t.add("src", literal(c.tester_ip.to_string(), true));
      if (!gives(l, "dst")) t.add("dst", literal(c.dut_ip.to_string(), true));
      if (!gives(l, "flags")) t.add("flags", "0x2");  // DF, as RoCEv2 senders set it
      if (!gives(l, "id")) t.add("id", "0x0");
    });
  }
  if (!ok) return ok;
  return add_lower(out, p, symbols, "UDP", [&](LayerText& t, const Layer* l) {
    if (!gives(l, "sport")) t.add("sport", hex(c.udp_sport));
    if (!gives(l, "chksum")) t.add("chksum", "0x0");  // RoCEv2 senders write 0
  });
}

// BTH and the layers after it in the script's order, with a UD connection's DETH, the BTH
// fields the engine fills, and the pad bytes (Scapy's BTH neither counts nor adds them).
Expected<void, SynthesisError> add_transport_layers(
    std::vector<LayerText>& out, const script::PacketExpr& p, const Connection& conn,
    const engine::ConnectionDefaults& c, const engine::SymbolTable& symbols, uint64_t pad,
    const std::optional<wire::Sacketh>& sacketh) {
  if (find(p, "BTH") == nullptr) out.emplace_back("BTH");
  for (const Layer& l : p.layers) {
    if (l.name == "Ether" || l.name == "Dot1Q" || l.name == "IP" || l.name == "IPv6" ||
        l.name == "UDP" || l.name == "SecTag")
      continue;
    LayerText& t = out.emplace_back(l.name);
    if (l.name == "SACKETH" && sacketh) {
      // `sacked` is the harness's notation for the bitmap (docs/test-language.md), and the
      // engine fills sack_ref and mpr where the script is silent: Scapy gets the values the
      // engine chose (sack_psn_list's and ext_exchange_test's own tests check those
      // choices) and checks every field's place in the header.
      if (auto r = t.add_script_fields(l, symbols, "sacked"); !r) return r;
      if (gives(&l, "sacked")) t.add("bitmap", hex(sacketh->bitmap.value()));
      if (!gives(&l, "sack_ref")) t.add("sack_ref", hex(sacketh->sack_ref.value()));
      if (!gives(&l, "mpr")) t.add("mpr", hex(sacketh->mpr.value()));
      continue;
    }
    if (auto r = t.add_script_fields(l, symbols); !r) return r;
    // The engine's SECH starts at epoch 1, the first a harness installs (section 19.4).
    if (l.name == "SECH" && !gives(&l, "epoch")) t.add("epoch", "0x1");
    // On a UD connection a DETH's unnamed fields are the connection's.
    if (l.name == "DETH" && conn.qkey) {
      if (!gives(&l, "qkey")) t.add("qkey", hex(*conn.qkey));
      if (!gives(&l, "sqpn")) t.add("sqpn", hex(c.tester_qpn));
    }
  }
  // A UD opcode on a UD connection gets the connection's DETH when the script gives none.
  const auto* info = wire::opcode_info(static_cast<uint8_t>(opcode_of(find(p, "BTH"), symbols)));
  if (conn.qkey && find(p, "DETH") == nullptr && info != nullptr && info->has(wire::kDeth)) {
    auto bth = std::ranges::find_if(out, [](const LayerText& t) { return t.name() == "BTH"; });
    LayerText deth("DETH");
    deth.add("qkey", hex(*conn.qkey));
    deth.add("sqpn", hex(c.tester_qpn));
    out.insert(bth + 1, std::move(deth));
  }
  for (LayerText& t : out) {
    if (t.name() != "BTH") continue;
    const Layer* given = find(p, "BTH");
    if (!gives(given, "dqpn")) t.add("dqpn", hex(c.dut_qpn));
    // TVer 1 on an Ext connection, but for a CNP (section 19.1), as the engine builds it.
    if (c.ext && !gives(given, "version") && opcode_of(given, symbols) != wire::kOpCnp)
      t.add("version", hex(wire::kExtVersion));
    if (!gives(given, "padcount")) t.add("padcount", hex(pad));
  }
  if (pad > 0) out.emplace_back("Raw").add("load", "bytes(" + hex(pad) + ")");
  // A secure packet (a SECH layer: SX set) ends in its tag, after payload and pad, whether
  // the script writes SecTag or the builder adds a zero one (the session seals it later).
  if (const Layer* tag = find(p, "SecTag")) {
    if (auto r = out.emplace_back("SecTag").add_script_fields(*tag, symbols); !r) return r;
  } else if (find(p, "SECH") != nullptr && !gives(find(p, "BTH"), "resv7")) {
    out.emplace_back("SecTag");
  }
  return {};
}

}  // namespace

Expected<ScapyCase, SynthesisError> scapy_case(script::PacketLine& line,
                                               const engine::SymbolTable& symbols,
                                               const Connection& connection) {
  script::PacketExpr& p = line.packet;
  const script::Position where = p.layers.empty() ? line.pos : p.layers.front().pos;
  if (!line.inject) as_expected_packet(p);
  const Connection conn = line.inject ? connection : connection.reversed();
  auto engine_conn = engine_connection(conn);
  if (!engine_conn) return Unexpected(SynthesisError{where, engine_conn.error()});
  const engine::ConnectionDefaults& c = *engine_conn;
  auto bytes = engine::synthesize(p, c, symbols);
  if (!bytes) return Unexpected(bytes.error());
  auto payload = payload_size(p, symbols);
  if (!payload) return Unexpected(payload.error());
  auto pad = pad_count(find(p, "BTH"), *payload, symbols);
  if (!pad) return Unexpected(pad.error());

  std::vector<LayerText> out;
  if (auto ok = add_lower_layers(out, p, conn, c, symbols); !ok) return Unexpected(ok.error());
  // The SACKETH our builder wrote, with what it filled in (its bitmap, sack_ref, mpr).
  std::optional<wire::Sacketh> sacketh;
  if (auto d = wire::decode_frame(*bytes)) {
    if (const auto* roce = std::get_if<wire::DecodedRoce>(&*d)) sacketh = roce->packet.sacketh;
  }
  if (auto ok = add_transport_layers(out, p, conn, c, symbols, *pad, sacketh); !ok) {
    return Unexpected(ok.error());
  }
  ScapyCase result;
  result.bytes = std::move(*bytes);
  for (size_t i = 0; i < out.size(); ++i) {
    result.scapy += (i ? "/" : "") + out[i].text();
    result.layers.push_back(out[i].name());
  }
  return result;
}

}  // namespace mr::oracles
