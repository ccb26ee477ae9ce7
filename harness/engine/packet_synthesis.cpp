#include "harness/engine/packet_synthesis.h"

#include <algorithm>
#include <cstdio>
#include <type_traits>

#include "harness/engine/byte_difference.h"
#include "harness/engine/evaluate.h"
#include "harness/script/expr_text.h"
#include "reference/wire/aeth_syndrome.h"
#include "reference/wire/frame_builder.h"
#include "reference/wire/opcode.h"

namespace mr::engine {
namespace {

using script::Expr;
using script::FieldArg;
using script::Layer;

template <class T>
constexpr bool is_address =
    std::is_same_v<T, wire::MacAddress> || std::is_same_v<T, wire::Ipv4Address> ||
    std::is_same_v<T, wire::Ipv6Address>;

// Sets field `arg.name` of header h from the script value.
template <class H>
Expected<void, SynthesisError> set_field(H& h, const std::string& layer, const FieldArg& arg,
                                         const SymbolTable& symbols) {
  bool found = false;
  Expected<void, SynthesisError> result;
  H::fields(h, [&](const char* name, auto& field) {
    if (found || arg.name != name) return;
    found = true;
    using T = std::remove_cvref_t<decltype(field)>;
    if constexpr (is_address<T>) {
      if (arg.value.kind != Expr::Kind::kBytes) {
        result = Unexpected(
            SynthesisError{arg.pos, layer + "." + arg.name + ": expected an address string"});
        return;
      }
      auto a = T::parse(arg.value.bytes);
      if (!a) {
        result = Unexpected(SynthesisError{
            arg.pos, layer + "." + arg.name + ": '" + arg.value.bytes + "' is not an address"});
        return;
      }
      field = *a;
    } else {
      auto v = evaluate_number(arg.value, symbols);
      if (!v) {
        result = Unexpected(SynthesisError{arg.pos, layer + "." + arg.name + ": " + v.error()});
        return;
      }
      // PSN-like fields wrap as on the wire; other values must fit (a typo must not wrap).
      const bool wraps = arg.name == "psn" || arg.name == "msn";
      if (!T::fits(*v) && !wraps) {
        result = Unexpected(SynthesisError{arg.pos, layer + "." + arg.name + ": " +
                                                        std::to_string(*v) + " does not fit in " +
                                                        std::to_string(T::kBits) + " bits"});
        return;
      }
      field = *v;
    }
  });
  if (!found)
    return Unexpected(SynthesisError{arg.pos, layer + " has no field '" + arg.name + "'"});
  return result;
}

template <class H>
Expected<void, SynthesisError> set_all(H& h, const Layer& l, const SymbolTable& symbols) {
  for (const auto& arg : l.args) {
    if (arg.value.kind == Expr::Kind::kWildcard) {
      return Unexpected(
          SynthesisError{arg.pos, "'*' (don't care) only makes sense on an expected packet"});
    }
    if (auto ok = set_field(h, l.name, arg, symbols); !ok) return ok;
  }
  return {};
}

template <class H>
Expected<void, SynthesisError> set_optional(std::optional<H>& slot, const Layer& l,
                                            const SymbolTable& symbols) {
  return set_all(slot.emplace(), l, symbols);
}

bool names_field(const Layer& l, std::string_view field) {
  return std::ranges::any_of(l.args, [&](const FieldArg& a) { return a.name == field; });
}

wire::Ipv4 default_ipv4(const ConnectionDefaults& c) {
  wire::Ipv4 ip;
  ip.src = c.tester_ip;
  ip.dst = c.dut_ip;
  ip.flags = 2;
  return ip;
}

wire::Ipv6 default_ipv6(const ConnectionDefaults& c) {
  wire::Ipv6 ip;
  ip.src = *c.tester_ip6;
  ip.dst = *c.dut_ip6;
  return ip;
}

std::string hex_bytes(std::span<const uint8_t> b, size_t max = 32) {
  std::string s;
  char buf[4];
  for (size_t i = 0; i < b.size() && i < max; ++i) {
    std::snprintf(buf, sizeof buf, "%02x", b[i]);
    s += buf;
  }
  if (b.size() > max) s += "... (" + std::to_string(b.size()) + " bytes)";
  return s;
}

// "P+1 = 0x372fea (3616746)": the script's expression beside its value, unless the
// expression is the literal itself.
std::string expected_text(const Expr& e, const std::string& value) {
  return script::is_literal(e) ? value : script::expr_text(e) + " = " + value;
}

}  // namespace

wire::RocePacket connection_packet(const ConnectionDefaults& c) {
  wire::RocePacket p;
  p.eth.src = c.tester_mac;
  p.eth.dst = c.dut_mac;
  const bool v6 = c.ipv6();
  const uint16_t l3_type = v6 ? wire::kEtherTypeIpv6 : wire::kEtherTypeIpv4;
  p.eth.type = l3_type;
  if (c.vlan) {
    p.vlan = wire::Dot1Q{.prio = c.pcp, .vlan = *c.vlan, .type = l3_type};
    p.eth.type = wire::kEtherTypeDot1Q;
  }
  if (v6) {
    p.ip = default_ipv6(c);
  } else {
    p.ip = default_ipv4(c);
  }
  p.udp.sport = c.udp_sport;
  p.bth.pkey = c.pkey;
  p.bth.dqpn = c.dut_qpn;
  return p;
}

std::string format_value(uint64_t v, unsigned bits) {
  char buf[64];
  const int digits = static_cast<int>((bits + 3) / 4);
  std::snprintf(buf, sizeof buf, "0x%0*llx (%llu)", digits, static_cast<unsigned long long>(v),
                static_cast<unsigned long long>(v));
  return buf;
}

Expected<std::vector<uint8_t>, SynthesisError> synthesize(const script::PacketExpr& packet,
                                                          const ConnectionDefaults& c,
                                                          const SymbolTable& symbols) {
  wire::RocePacket p = connection_packet(c);
  std::vector<uint8_t> payload;
  std::optional<uint32_t> icrc;
  bool padcount_given = false;
  bool udp_checksum = false;
  bool ip_checksum_given = false;
  bool ether_type_given = false;
  bool vlan_type_given = false;
  for (const Layer& l : packet.layers) {
    Expected<void, SynthesisError> ok;
    if (l.name == "Ether") {
      ok = set_all(p.eth, l, symbols);
      ether_type_given = names_field(l, "type");
    } else if (l.name == "Dot1Q") {
      // Over the connection's tag, if it has one: the script changes only what it names.
      if (!p.vlan) p.vlan.emplace();
      ok = set_all(*p.vlan, l, symbols);
      vlan_type_given = names_field(l, "type");
    } else if (l.name == "IPv6") {
      if (!c.ipv6()) {
        return Unexpected(SynthesisError{
            l.pos, "IPv6: the PIXIT gives no tester.ipv6/dut.ipv6 addresses for this connection"});
      }
      if (!std::holds_alternative<wire::Ipv6>(p.ip)) p.ip = default_ipv6(c);
      ok = set_all(std::get<wire::Ipv6>(p.ip), l, symbols);
    } else if (l.name == "IP") {
      if (!std::holds_alternative<wire::Ipv4>(p.ip)) p.ip = default_ipv4(c);
      ok = set_all(std::get<wire::Ipv4>(p.ip), l, symbols);
      // A header checksum the script writes is sent as written, even a wrong one.
      ip_checksum_given =
          std::ranges::any_of(l.args, [](const FieldArg& a) { return a.name == "chksum"; });
    } else if (l.name == "UDP") {
      // Scapy's UDP(chksum=None): the checksum a sender computes (RoCEv2 senders write 0).
      for (const auto& arg : l.args) {
        if (arg.name == "chksum" && arg.value.kind == Expr::Kind::kSymbol &&
            arg.value.text == "None") {
          udp_checksum = true;
          continue;
        }
        if (arg.value.kind == Expr::Kind::kWildcard) {
          return Unexpected(
              SynthesisError{arg.pos, "'*' (don't care) only makes sense on an expected packet"});
        }
        if (auto r = set_field(p.udp, "UDP", arg, symbols); !r) return Unexpected(r.error());
      }
    } else if (l.name == "BTH") {
      for (const auto& arg : l.args) {
        if (arg.name == "icrc") {
          auto v = evaluate_number(arg.value, symbols);
          if (!v) return Unexpected(SynthesisError{arg.pos, "BTH.icrc: " + v.error()});
          icrc = static_cast<uint32_t>(*v);
          continue;
        }
        padcount_given = padcount_given || arg.name == "padcount";
        if (auto r = set_field(p.bth, "BTH", arg, symbols); !r) return Unexpected(r.error());
      }
    } else if (l.name == "RETH") {
      ok = set_optional(p.reth, l, symbols);
    } else if (l.name == "AETH") {
      ok = set_optional(p.aeth, l, symbols);
    } else if (l.name == "AtomicETH") {
      ok = set_optional(p.atomic_eth, l, symbols);
    } else if (l.name == "AtomicAckETH") {
      ok = set_optional(p.atomic_ack_eth, l, symbols);
    } else if (l.name == "ImmDt") {
      ok = set_optional(p.imm_dt, l, symbols);
    } else if (l.name == "IETH") {
      ok = set_optional(p.ieth, l, symbols);
    } else if (l.name == "DETH") {
      // On a UD connection the fields a script leaves out are the connection's.
      p.deth = c.qkey ? wire::Deth{*c.qkey, 0, c.tester_qpn} : wire::Deth{};
      ok = set_all(*p.deth, l, symbols);
    } else if (l.name == "CNPPadding") {
      ok = set_optional(p.cnp_padding, l, symbols);
    } else if (l.name == "Raw") {
      for (const auto& arg : l.args) {
        if (arg.name != "load")
          return Unexpected(SynthesisError{arg.pos, "Raw has only the field 'load'"});
        auto b = evaluate_bytes(arg.value, symbols);
        if (!b) return Unexpected(SynthesisError{arg.pos, "Raw.load: " + b.error()});
        payload.insert(payload.end(), b->begin(), b->end());
      }
    } else {
      return Unexpected(
          SynthesisError{l.pos, "unknown layer '" + l.name +
                                    "' (known: Ether Dot1Q IP IPv6 UDP BTH RETH AETH AtomicETH "
                                    "AtomicAckETH ImmDt IETH DETH CNPPadding Raw)"});
    }
    if (!ok) return Unexpected(ok.error());
  }
  // Ether types follow the layers present unless the script wrote them (a wrong one on
  // purpose is sent as written).
  const uint16_t l3_type =
      std::holds_alternative<wire::Ipv6>(p.ip) ? wire::kEtherTypeIpv6 : wire::kEtherTypeIpv4;
  if (p.vlan && !vlan_type_given) p.vlan->type = l3_type;
  if (!ether_type_given) p.eth.type = p.vlan ? wire::kEtherTypeDot1Q : l3_type;
  // A UD opcode on a UD connection gets the connection's DETH when the script gives none.
  if (const auto* info = wire::opcode_info(p.bth.opcode);
      c.qkey && !p.deth && info && info->has(wire::kDeth)) {
    p.deth = wire::Deth{*c.qkey, 0, c.tester_qpn};
  }
  p.payload = payload;
  static const std::vector<uint8_t> kZeros(3, 0);
  wire::BuildOptions options;
  options.fill_padding = !padcount_given;
  options.fill_udp_checksum = udp_checksum;
  options.fill_ip_checksum = !ip_checksum_given;
  if (padcount_given) p.pad = std::span(kZeros).first(p.bth.padcount);
  if (icrc) {
    options.fill_icrc = false;
    p.icrc = *icrc;
  }
  return wire::build_frame(p, options);
}

namespace {

// Compares one field the script names in header `actual`.
template <class H>
Expected<void, SynthesisError> compare_field(const H& actual, const std::string& layer,
                                             const FieldArg& arg, const SymbolTable& symbols,
                                             std::vector<FieldMismatch>& out) {
  if (arg.value.kind == Expr::Kind::kWildcard) return {};
  bool found = false;
  Expected<void, SynthesisError> err;
  H::fields(actual, [&](const char* name, const auto& field) {
    if (found || arg.name != name) return;
    found = true;
    using T = std::remove_cvref_t<decltype(field)>;
    const std::string where = layer + "." + arg.name;
    if constexpr (is_address<T>) {
      if (arg.value.bytes != field.to_string())
        out.push_back({arg.pos, where, arg.value.bytes, field.to_string()});
    } else {
      const uint64_t got = field.value();
      if (where == "AETH.syndrome" && arg.value.kind == Expr::Kind::kName) {
        const auto cls = syndrome_class(arg.value.text);
        if (cls == SyndromeClass::kAck) {
          if (!wire::is_ack(static_cast<uint8_t>(got)))
            out.push_back({arg.pos, where, "an ACK syndrome (0x00-0x1f)", format_value(got, 8)});
          return;
        }
        if (cls == SyndromeClass::kRnrNak) {
          if (!wire::is_rnr_nak(static_cast<uint8_t>(got))) {
            out.push_back(
                {arg.pos, where, "an RNR NAK syndrome (0x20-0x3f)", format_value(got, 8)});
          }
          return;
        }
      }
      auto want = evaluate_number(arg.value, symbols);
      if (!want) {
        err = Unexpected(SynthesisError{arg.pos, where + ": " + want.error()});
        return;
      }
      // PSN and MSN arithmetic wraps as on the wire; any other value must fit its field.
      const uint64_t masked = *want & T::kMax;
      const bool wraps = arg.name == "psn" || arg.name == "msn";
      if (!wraps && masked != *want) {
        err = Unexpected(SynthesisError{arg.pos, where + ": " + std::to_string(*want) +
                                                     " does not fit in " +
                                                     std::to_string(T::kBits) + " bits"});
        return;
      }
      if (masked != got) {
        out.push_back({arg.pos, where, expected_text(arg.value, format_value(masked, T::kBits)),
                       format_value(got, T::kBits)});
      }
    }
  });
  if (!err) return err;
  if (!found)
    return Unexpected(SynthesisError{arg.pos, layer + " has no field '" + arg.name + "'"});
  return {};
}

// Compares every field the script names in one layer; the layer must be present.
template <class H>
Expected<void, SynthesisError> compare(const H* actual, const Layer& l, const SymbolTable& symbols,
                                       std::vector<FieldMismatch>& out) {
  if (actual == nullptr) {
    out.push_back({l.pos, l.name, "present", "absent"});
    return {};
  }
  for (const auto& arg : l.args) {
    if (auto ok = compare_field(*actual, l.name, arg, symbols, out); !ok) return ok;
  }
  return {};
}

template <class H>
const H* ptr(const std::optional<H>& o) {
  return o ? &*o : nullptr;
}

}  // namespace

Expected<std::vector<FieldMismatch>, SynthesisError> match(const script::PacketExpr& expected,
                                                           const wire::DecodedRoce& actual,
                                                           const ConnectionDefaults& c,
                                                           const SymbolTable& symbols) {
  std::vector<FieldMismatch> out;
  const wire::RocePacket& p = actual.packet;
  bool dqpn_given = false;
  bool deth_given = false;
  bool icrc_wildcard = false;
  for (const Layer& l : expected.layers) {
    Expected<void, SynthesisError> ok;
    if (l.name == "Ether") {
      ok = compare(&p.eth, l, symbols, out);
    } else if (l.name == "Dot1Q") {
      ok = compare(ptr(p.vlan), l, symbols, out);
    } else if (l.name == "IP") {
      ok = compare(std::get_if<wire::Ipv4>(&p.ip), l, symbols, out);
    } else if (l.name == "IPv6") {
      ok = compare(std::get_if<wire::Ipv6>(&p.ip), l, symbols, out);
    } else if (l.name == "UDP") {
      ok = compare(&p.udp, l, symbols, out);
    } else if (l.name == "BTH") {
      // `icrc` is a BTH field in Scapy (the trailer); here it is checked through icrc_ok.
      for (const auto& arg : l.args) {
        dqpn_given = dqpn_given || arg.name == "dqpn";
        if (arg.name == "icrc") {
          icrc_wildcard = arg.value.kind == Expr::Kind::kWildcard;
          continue;
        }
        if (ok = compare_field(p.bth, "BTH", arg, symbols, out); !ok) break;
      }
    } else if (l.name == "RETH") {
      ok = compare(ptr(p.reth), l, symbols, out);
    } else if (l.name == "AETH") {
      ok = compare(ptr(p.aeth), l, symbols, out);
    } else if (l.name == "AtomicETH") {
      ok = compare(ptr(p.atomic_eth), l, symbols, out);
    } else if (l.name == "AtomicAckETH") {
      ok = compare(ptr(p.atomic_ack_eth), l, symbols, out);
    } else if (l.name == "ImmDt") {
      ok = compare(ptr(p.imm_dt), l, symbols, out);
    } else if (l.name == "IETH") {
      ok = compare(ptr(p.ieth), l, symbols, out);
    } else if (l.name == "DETH") {
      deth_given = true;
      ok = compare(ptr(p.deth), l, symbols, out);
    } else if (l.name == "CNPPadding") {
      ok = compare(ptr(p.cnp_padding), l, symbols, out);
    } else if (l.name == "Raw") {
      for (const auto& arg : l.args) {
        if (arg.value.kind == Expr::Kind::kWildcard) continue;
        if (arg.name == "len") {  // a harness extension: check the length only
          auto n = evaluate_number(arg.value, symbols);
          if (!n) return Unexpected(SynthesisError{arg.pos, "Raw.len: " + n.error()});
          if (*n != p.payload.size()) {
            out.push_back({arg.pos, "Raw.len", expected_text(arg.value, std::to_string(*n)),
                           std::to_string(p.payload.size())});
          }
          continue;
        }
        if (arg.name != "load")
          return Unexpected(SynthesisError{arg.pos, "Raw has only 'load' (and 'len' on expect)"});
        auto b = evaluate_bytes(arg.value, symbols);
        if (!b) return Unexpected(SynthesisError{arg.pos, "Raw.load: " + b.error()});
        if (const auto d = first_difference(*b, p.payload)) {
          out.push_back({arg.pos, "Raw.load", d->expected, d->actual,
                         std::to_string(b->size()) + "-byte payload expected, " +
                             std::to_string(p.payload.size()) + " came; it differs " +
                             d->summary(b->size())});
        }
      }
    } else {
      return Unexpected(SynthesisError{l.pos, "unknown layer '" + l.name + "'"});
    }
    if (!ok) return Unexpected(ok.error());
  }
  // Implicit connection checks.
  const script::Position where =
      expected.layers.empty() ? script::Position{} : expected.layers.front().pos;
  if (!dqpn_given && p.bth.dqpn != c.tester_qpn) {
    out.push_back(
        {where, "BTH.dqpn", format_value(c.tester_qpn, 24), format_value(p.bth.dqpn, 24)});
  }
  // MR-UD-01: on a UD connection the DETH names the DUT's QP as the source.
  if (c.qkey && p.deth && !deth_given && p.deth->sqpn != c.dut_qpn) {
    out.push_back(
        {where, "DETH.sqpn", format_value(c.dut_qpn, 24), format_value(p.deth->sqpn, 24)});
  }
  if (!icrc_wildcard && !actual.icrc_ok()) {
    out.push_back(
        {where, "ICRC", format_value(actual.icrc_computed, 32), format_value(p.icrc, 32)});
  }
  // MR-WF-06: pad bytes are sent as zeros.
  if (std::any_of(p.pad.begin(), p.pad.end(), [](uint8_t b) { return b != 0; })) {
    out.push_back({where, "pad", "zero bytes", hex_bytes(p.pad)});
  }
  if (const auto* v4 = std::get_if<wire::Ipv4>(&p.ip); v4 && !(v4->dst == c.tester_ip)) {
    out.push_back({where, "IP.dst", c.tester_ip.to_string(), v4->dst.to_string()});
  }
  const auto* v6 = std::get_if<wire::Ipv6>(&p.ip);
  if (v6 && !(c.tester_ip6 && v6->dst == *c.tester_ip6)) {
    out.push_back({where, "IPv6.dst", c.tester_ip6 ? c.tester_ip6->to_string() : "no IPv6 address",
                   v6->dst.to_string()});
  }
  // A connection is one address family: a DUT that answers an IPv6 QP over IPv4 (or the
  // reverse) has the wrong address vector, whatever the script names.
  if (c.ipv6() != (v6 != nullptr)) {
    out.push_back({where, "IP version", c.ipv6() ? "IPv6" : "IPv4", v6 ? "IPv6" : "IPv4"});
  }
  return out;
}

}  // namespace mr::engine
