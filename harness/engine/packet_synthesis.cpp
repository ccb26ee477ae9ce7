#include "harness/engine/packet_synthesis.h"

#include <algorithm>
#include <cstdio>
#include <type_traits>

#include "harness/engine/byte_difference.h"
#include "harness/engine/evaluate.h"
#include "harness/engine/sack_psn_list.h"
#include "harness/engine/secure_session.h"
#include "harness/script/expr_text.h"
#include "reference/wire/aeth_syndrome.h"
#include "reference/wire/byte_array.h"
#include "reference/wire/frame_builder.h"
#include "reference/wire/mxcap.h"
#include "reference/wire/opcode.h"
#include "reference/wire/psn.h"

namespace mr::engine {
namespace {

using script::Expr;
using script::FieldArg;
using script::Layer;

// A text field's value from a script string: an address's text, or a byte array's N raw
// bytes (`b"\x00..."`, as Scapy takes it) or its 2N hex digits.
template <class T>
std::optional<T> text_value(const std::string& s) {
  if constexpr (wire::kIsByteArray<T>) {
    if (s.size() == T::kBytes) {
      T a;
      std::copy(s.begin(), s.end(), a.bytes.begin());
      return a;
    }
  }
  return T::parse(s);
}

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
    if constexpr (wire::TextField<T>) {
      if (arg.value.kind != Expr::Kind::kBytes) {
        result = Unexpected(SynthesisError{
            arg.pos,
            layer + "." + arg.name + ": expected a string: " + wire::text_field_kind<T>()});
        return;
      }
      auto a = text_value<T>(arg.value.bytes);
      if (!a) {
        result =
            Unexpected(SynthesisError{arg.pos, layer + "." + arg.name + ": '" + arg.value.bytes +
                                                   "' is not " + wire::text_field_kind<T>()});
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
      const bool wraps = arg.name == "psn" || arg.name == "msn" || arg.name == "sack_ref";
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
  if (c.ext) p.bth.version = wire::kExtVersion;
  return p;
}

std::string format_value(uint64_t v, unsigned bits) {
  char buf[64];
  const int digits = static_cast<int>((bits + 3) / 4);
  std::snprintf(buf, sizeof buf, "0x%0*llx (%llu)", digits, static_cast<unsigned long long>(v),
                static_cast<unsigned long long>(v));
  return buf;
}

namespace {

// The frame an injected line describes, layer by layer over the connection's defaults. The
// fields a script writes are sent as written, even wrong ones (ether types, checksums, pad
// count, ICRC); the rest follow the layers present.
class FrameSynthesis {
 public:
  FrameSynthesis(const ConnectionDefaults& c, const SymbolTable& symbols)
      : c_(c), symbols_(symbols), p_(connection_packet(c)) {}

  Expected<void, SynthesisError> layer(const Layer& l) {
    if (l.name == "Ether") {
      ether_type_given_ = names_field(l, "type");
      return set_all(p_.eth, l, symbols_);
    }
    if (l.name == "Dot1Q") {
      // Over the connection's tag, if it has one: the script changes only what it names.
      if (!p_.vlan) p_.vlan.emplace();
      vlan_type_given_ = names_field(l, "type");
      return set_all(*p_.vlan, l, symbols_);
    }
    if (l.name == "IPv6") return ipv6(l);
    if (l.name == "IP") {
      if (!std::holds_alternative<wire::Ipv4>(p_.ip)) p_.ip = default_ipv4(c_);
      // A header checksum the script writes is sent as written, even a wrong one.
      ip_checksum_given_ = names_field(l, "chksum");
      // So is a total length: a trimming switch may leave the original one (MR-TR-13).
      ip_length_given_ = names_field(l, "len");
      return set_all(std::get<wire::Ipv4>(p_.ip), l, symbols_);
    }
    if (l.name == "UDP") return udp(l);
    if (l.name == "BTH") return bth(l);
    if (l.name == "RETH") return set_optional(p_.reth, l, symbols_);
    if (l.name == "AETH") return set_optional(p_.aeth, l, symbols_);
    if (l.name == "AtomicETH") return set_optional(p_.atomic_eth, l, symbols_);
    if (l.name == "AtomicAckETH") return set_optional(p_.atomic_ack_eth, l, symbols_);
    if (l.name == "ImmDt") return set_optional(p_.imm_dt, l, symbols_);
    if (l.name == "IETH") return set_optional(p_.ieth, l, symbols_);
    if (l.name == "DETH") {
      // On a UD connection the fields a script leaves out are the connection's.
      p_.deth = c_.qkey ? wire::Deth{*c_.qkey, 0, c_.tester_qpn} : wire::Deth{};
      return set_all(*p_.deth, l, symbols_);
    }
    if (l.name == "CNPPadding") return set_optional(p_.cnp_padding, l, symbols_);
    if (l.name == "MXH") return set_optional(p_.mxh, l, symbols_);
    if (l.name == "SACKETH") return sacketh(l);
    if (l.name == "CRETH") return set_optional(p_.creth, l, symbols_);
    if (l.name == "RSYNETH") return set_optional(p_.rsyneth, l, symbols_);
    if (l.name == "SECH") {
      sech_given_ = true;
      spi_given_ = names_field(l, "spi");
      if (!p_.sech) p_.sech = default_sech();
      return set_all(*p_.sech, l, symbols_);
    }
    if (l.name == "SecTag") return set_optional(p_.sec_tag, l, symbols_);
    if (l.name == "Raw") return raw(l);
    return Unexpected(SynthesisError{
        l.pos, "unknown layer '" + l.name +
                   "' (known: Ether Dot1Q IP IPv6 UDP BTH SECH RETH AETH AtomicETH AtomicAckETH "
                   "ImmDt IETH DETH CNPPadding MXH SACKETH CRETH RSYNETH SecTag Raw)"});
  }

  Expected<std::vector<uint8_t>, SynthesisError> frame() {
    // Ether types follow the layers present unless the script wrote them (a wrong one on
    // purpose is sent as written).
    const uint16_t l3_type =
        std::holds_alternative<wire::Ipv6>(p_.ip) ? wire::kEtherTypeIpv6 : wire::kEtherTypeIpv4;
    if (p_.vlan && !vlan_type_given_) p_.vlan->type = l3_type;
    if (!ether_type_given_) p_.eth.type = p_.vlan ? wire::kEtherTypeDot1Q : l3_type;
    // A UD opcode on a UD connection gets the connection's DETH when the script gives none.
    if (const auto* info = wire::opcode_info(p_.bth.opcode);
        c_.qkey && !p_.deth && info && info->has(wire::kDeth)) {
      p_.deth = wire::Deth{*c_.qkey, 0, c_.tester_qpn};
    }
    // A CNP has TVer 0 on an Ext connection too (section 19.1).
    if (p_.bth.opcode == wire::kOpCnp && !version_given_) p_.bth.version = 0;
    secure_defaults();
    if (p_.sacketh) {
      if (auto ok = fill_sacketh(); !ok) return Unexpected(ok.error());
    }
    p_.payload = payload_;
    static const std::vector<uint8_t> kZeros(3, 0);
    wire::BuildOptions options;
    options.fill_padding = !padcount_given_;
    options.fill_udp_checksum = udp_checksum_;
    options.fill_ip_checksum = !ip_checksum_given_;
    options.fill_ip_length = !ip_length_given_;
    options.fill_udp_length = !udp_length_given_;
    if (padcount_given_) p_.pad = std::span(kZeros).first(p_.bth.padcount);
    if (icrc_) {
      options.fill_icrc = false;
      p_.icrc = *icrc_;
    }
    return wire::build_frame(p_, options);
  }

 private:
  // Section 19.4: on a secure connection a packet has SX = 1, a SECH and a tag unless the
  // script writes BTH resv7 itself; a SECH layer sets SX on any Ext connection, as Scapy's
  // BTH()/SECH() does. The session seals what this lays out.
  void secure_defaults() {
    if (p_.bth.opcode == wire::kOpCnp) return;
    const bool secure_connection = c_.secure != nullptr && !resv7_given_;
    if ((secure_connection || sech_given_) && !resv7_given_)
      p_.bth.resv7 = p_.bth.resv7.value() | wire::Bth::kResv7Sx;
    if (!p_.bth.sx()) return;
    if (!p_.sech) p_.sech = default_sech();
    if (!p_.sec_tag) p_.sec_tag.emplace();
    // The tester's SPI of the epoch the script names (section 19.4: the receiver's choice,
    // which the harness made when it installed the keys).
    if (c_.secure && !spi_given_) p_.sech->spi = c_.secure->tester_spi(p_.sech->epoch.value());
  }
  wire::Sech default_sech() const {
    wire::Sech s;
    s.epoch = 1;
    s.spi = c_.secure ? c_.secure->tester_spi(1) : 0;
    return s;
  }

  Expected<void, SynthesisError> ipv6(const Layer& l) {
    if (!c_.ipv6()) {
      return Unexpected(SynthesisError{
          l.pos, "IPv6: the PIXIT gives no tester.ipv6/dut.ipv6 addresses for this connection"});
    }
    if (!std::holds_alternative<wire::Ipv6>(p_.ip)) p_.ip = default_ipv6(c_);
    ip_length_given_ = names_field(l, "plen");
    return set_all(std::get<wire::Ipv6>(p_.ip), l, symbols_);
  }

  Expected<void, SynthesisError> udp(const Layer& l) {
    udp_length_given_ = names_field(l, "len");
    for (const auto& arg : l.args) {
      // Scapy's UDP(chksum=None): the checksum a sender computes (RoCEv2 senders write 0).
      if (arg.name == "chksum" && arg.value.kind == Expr::Kind::kSymbol &&
          arg.value.text == "None") {
        udp_checksum_ = true;
        continue;
      }
      if (arg.value.kind == Expr::Kind::kWildcard) {
        return Unexpected(
            SynthesisError{arg.pos, "'*' (don't care) only makes sense on an expected packet"});
      }
      if (auto r = set_field(p_.udp, "UDP", arg, symbols_); !r) return r;
    }
    return {};
  }

  Expected<void, SynthesisError> bth(const Layer& l) {
    for (const auto& arg : l.args) {
      // `icrc` is a BTH field in Scapy (the trailer): sent as written.
      if (arg.name == "icrc") {
        auto v = evaluate_number(arg.value, symbols_);
        if (!v) return Unexpected(SynthesisError{arg.pos, "BTH.icrc: " + v.error()});
        icrc_ = static_cast<uint32_t>(*v);
        continue;
      }
      padcount_given_ = padcount_given_ || arg.name == "padcount";
      resv7_given_ = resv7_given_ || arg.name == "resv7";
      version_given_ = version_given_ || arg.name == "version";
      if (auto r = set_field(p_.bth, "BTH", arg, symbols_); !r) return r;
    }
    return {};
  }

  // What the script leaves out of an injected SACKETH is a conformant ACK's (spec 19.3): the
  // reference R = (C + 1) rounded down to 8 and the MPR ext=1 offers; the bitmap
  // reports `sacked` and every PSN up to C. C is an ACK's BTH PSN, the one before a NAK's
  // (the refused packet follows it), or R - 1 when the script gives R.
  Expected<void, SynthesisError> fill_sacketh() {
    wire::Sacketh& h = *p_.sacketh;
    const bool nak = p_.aeth && !wire::is_ack(p_.aeth->syndrome.value());
    uint32_t cumulative = nak ? wire::psn_add(p_.bth.psn.value(), -1) : p_.bth.psn.value();
    if (sack_ref_given_) {
      if (nak) cumulative = wire::psn_add(h.sack_ref.value(), -1);
    } else {
      h.sack_ref = wire::psn_add(cumulative, 1) & ~uint32_t{7};
    }
    if (!mpr_given_) h.mpr = wire::Mxcap{}.mpr;  // the window create_qp ext=1 offers
    if (!sacked_) return {};
    const uint32_t base = h.bitmap_base().value();
    for (const uint32_t psn : *sacked_) {
      if (((psn - base) & wire::kPsnMask) >= 64) {
        return Unexpected(SynthesisError{
            sacked_pos_, "SACKETH.sacked: " + psn_list_text(std::span(&psn, 1)) +
                             " is not among the 64 PSNs the bitmap covers from " +
                             psn_list_text(std::span(&base, 1)) + " (sack_ref + sack_offset)"});
      }
    }
    h.bitmap = sack_bitmap(h, cumulative, *sacked_);
    return {};
  }

  Expected<void, SynthesisError> sacketh(const Layer& l) {
    wire::Sacketh& h = p_.sacketh.emplace();
    sack_ref_given_ = names_field(l, "sack_ref");
    mpr_given_ = names_field(l, "mpr");
    for (const auto& arg : l.args) {
      if (arg.value.kind == Expr::Kind::kWildcard) {
        return Unexpected(
            SynthesisError{arg.pos, "'*' (don't care) only makes sense on an expected packet"});
      }
      if (arg.name == "sacked") {  // with bitmap= too: refused by the parser (layer_schema)
        auto psns = evaluate_psn_list(arg.value, symbols_);
        if (!psns) return Unexpected(SynthesisError{arg.pos, "SACKETH.sacked: " + psns.error()});
        sacked_ = std::move(*psns);
        sacked_pos_ = arg.pos;
        continue;
      }
      if (auto r = set_field(h, "SACKETH", arg, symbols_); !r) return r;
    }
    return {};
  }

  Expected<void, SynthesisError> raw(const Layer& l) {
    for (const auto& arg : l.args) {
      if (arg.name != "load")
        return Unexpected(SynthesisError{arg.pos, "Raw has only the field 'load'"});
      auto b = evaluate_bytes(arg.value, symbols_);
      if (!b) return Unexpected(SynthesisError{arg.pos, "Raw.load: " + b.error()});
      payload_.insert(payload_.end(), b->begin(), b->end());
    }
    return {};
  }

  const ConnectionDefaults& c_;
  const SymbolTable& symbols_;
  wire::RocePacket p_;
  std::vector<uint8_t> payload_;
  std::optional<uint32_t> icrc_;
  std::optional<std::vector<uint32_t>> sacked_;
  script::Position sacked_pos_;
  bool sack_ref_given_ = false;
  bool mpr_given_ = false;
  bool version_given_ = false;
  bool padcount_given_ = false;
  bool resv7_given_ = false;
  bool sech_given_ = false;
  bool spi_given_ = false;
  bool udp_checksum_ = false;
  bool ip_checksum_given_ = false;
  bool ip_length_given_ = false;  // IPv4 len or IPv6 plen
  bool udp_length_given_ = false;
  bool ether_type_given_ = false;
  bool vlan_type_given_ = false;
};

}  // namespace

Expected<std::vector<uint8_t>, SynthesisError> synthesize(const script::PacketExpr& packet,
                                                          const ConnectionDefaults& c,
                                                          const SymbolTable& symbols) {
  FrameSynthesis synthesis(c, symbols);
  for (const Layer& l : packet.layers) {
    if (auto ok = synthesis.layer(l); !ok) return Unexpected(ok.error());
  }
  return synthesis.frame();
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
    if constexpr (wire::TextField<T>) {
      const auto want = text_value<T>(arg.value.bytes);
      if (!want) {
        err = Unexpected(SynthesisError{
            arg.pos, where + ": '" + arg.value.bytes + "' is not " + wire::text_field_kind<T>()});
        return;
      }
      if (!(*want == field)) out.push_back({arg.pos, where, want->to_string(), field.to_string()});
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
      const bool wraps = arg.name == "psn" || arg.name == "msn" || arg.name == "sack_ref";
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

// An expected packet compared with what came: every field the script names, then the
// connection's implicit checks (addresses, destination QP, ICRC, pad, address family).
class FrameMatch {
 public:
  FrameMatch(const wire::DecodedRoce& actual, const ConnectionDefaults& c,
             const SymbolTable& symbols)
      : actual_(actual), p_(actual.packet), c_(c), symbols_(symbols) {}

  Expected<void, SynthesisError> layer(const Layer& l) {
    if (l.name == "Ether") return compare(&p_.eth, l, symbols_, out_);
    if (l.name == "Dot1Q") return compare(ptr(p_.vlan), l, symbols_, out_);
    if (l.name == "IP") return compare(std::get_if<wire::Ipv4>(&p_.ip), l, symbols_, out_);
    if (l.name == "IPv6") return compare(std::get_if<wire::Ipv6>(&p_.ip), l, symbols_, out_);
    if (l.name == "UDP") return compare(&p_.udp, l, symbols_, out_);
    if (l.name == "BTH") return bth(l);
    if (l.name == "RETH") return compare(ptr(p_.reth), l, symbols_, out_);
    if (l.name == "AETH") return compare(ptr(p_.aeth), l, symbols_, out_);
    if (l.name == "AtomicETH") return compare(ptr(p_.atomic_eth), l, symbols_, out_);
    if (l.name == "AtomicAckETH") return compare(ptr(p_.atomic_ack_eth), l, symbols_, out_);
    if (l.name == "ImmDt") return compare(ptr(p_.imm_dt), l, symbols_, out_);
    if (l.name == "IETH") return compare(ptr(p_.ieth), l, symbols_, out_);
    if (l.name == "DETH") {
      deth_given_ = true;
      return compare(ptr(p_.deth), l, symbols_, out_);
    }
    if (l.name == "CNPPadding") return compare(ptr(p_.cnp_padding), l, symbols_, out_);
    if (l.name == "MXH") return compare(ptr(p_.mxh), l, symbols_, out_);
    if (l.name == "SACKETH") return sacketh(l);
    if (l.name == "CRETH") return compare(ptr(p_.creth), l, symbols_, out_);
    if (l.name == "RSYNETH") return compare(ptr(p_.rsyneth), l, symbols_, out_);
    if (l.name == "SECH") return compare(ptr(p_.sech), l, symbols_, out_);
    if (l.name == "SecTag") return compare(ptr(p_.sec_tag), l, symbols_, out_);
    if (l.name == "Raw") return raw(l);
    return Unexpected(SynthesisError{l.pos, "unknown layer '" + l.name + "'"});
  }

  // Checked whatever the script names; reported at the packet's first layer.
  std::vector<FieldMismatch> implicit_checks(const script::Position& where) {
    if (!dqpn_given_ && p_.bth.dqpn != c_.tester_qpn) {
      out_.push_back(
          {where, "BTH.dqpn", format_value(c_.tester_qpn, 24), format_value(p_.bth.dqpn, 24)});
    }
    // The connection's mode, which the harness set up and a capture alone cannot show: TVer 0
    // on a base-mode QP (MR-WF-02, MR-EX-02), 1 on every packet but a CNP of an Ext QP
    // (MR-EX-04). A CNP has TVer 0 in both.
    const unsigned tver = p_.bth.opcode == wire::kOpCnp || !c_.ext ? 0 : wire::kExtVersion;
    if (!version_given_ && p_.bth.version != tver) {
      out_.push_back({where, "BTH.version",
                      format_value(tver, 4) + (c_.ext ? " (extension mode)" : " (base mode)"),
                      format_value(p_.bth.version.value(), 4)});
    }
    // MR-SE-12: SX = 0 on every Ext packet of a connection without SECURE (a secure one's
    // packets the session judges, with their tags).
    if (c_.ext && !c_.secure && p_.bth.is_ext() && p_.bth.sx()) {
      out_.push_back({where, "BTH.sx", "0 (no SECURE on this connection)", "1"});
    }
    // MR-UD-01: on a UD connection the DETH names the DUT's QP as the source.
    if (c_.qkey && p_.deth && !deth_given_ && p_.deth->sqpn != c_.dut_qpn) {
      out_.push_back(
          {where, "DETH.sqpn", format_value(c_.dut_qpn, 24), format_value(p_.deth->sqpn, 24)});
    }
    if (!icrc_wildcard_ && !actual_.icrc_ok()) {
      out_.push_back(
          {where, "ICRC", format_value(actual_.icrc_computed, 32), format_value(p_.icrc, 32)});
    }
    // MR-WF-06: pad bytes are sent as zeros.
    if (std::any_of(p_.pad.begin(), p_.pad.end(), [](uint8_t b) { return b != 0; })) {
      out_.push_back({where, "pad", "zero bytes", hex_bytes(p_.pad)});
    }
    check_addresses(where);
    return std::move(out_);
  }

 private:
  Expected<void, SynthesisError> bth(const Layer& l) {
    // `icrc` is a BTH field in Scapy (the trailer); here it is checked through icrc_ok.
    for (const auto& arg : l.args) {
      dqpn_given_ = dqpn_given_ || arg.name == "dqpn";
      version_given_ = version_given_ || arg.name == "version";
      if (arg.name == "icrc") {
        icrc_wildcard_ = arg.value.kind == Expr::Kind::kWildcard;
        continue;
      }
      if (auto ok = compare_field(p_.bth, "BTH", arg, symbols_, out_); !ok) return ok;
    }
    return {};
  }

  Expected<void, SynthesisError> sacketh(const Layer& l) {
    if (!p_.sacketh) {
      out_.push_back({l.pos, l.name, "present", "absent"});
      return {};
    }
    for (const auto& arg : l.args) {
      if (arg.name != "sacked") {
        if (auto ok = compare_field(*p_.sacketh, "SACKETH", arg, symbols_, out_); !ok) return ok;
        continue;
      }
      if (arg.value.kind == Expr::Kind::kWildcard) continue;
      auto want = evaluate_psn_list(arg.value, symbols_);
      if (!want) return Unexpected(SynthesisError{arg.pos, "SACKETH.sacked: " + want.error()});
      // In PSN order after the cumulative PSN, as the reading lists them.
      const uint32_t cumulative =
          cumulative_psn(*p_.sacketh, p_.bth.psn.value(), wire::cumulative_in_bitmap(p_));
      const auto after = [&](uint32_t psn) { return (psn - cumulative) & wire::kPsnMask; };
      std::sort(want->begin(), want->end(),
                [&](uint32_t a, uint32_t b) { return after(a) < after(b); });
      want->erase(std::unique(want->begin(), want->end()), want->end());
      const SackReading got = read_sack(*p_.sacketh, cumulative);
      if (got.sacked != *want) {
        char base[48];
        std::snprintf(base, sizeof base, "the bitmap covers 0x%06x..0x%06x",
                      p_.sacketh->bitmap_base().value(),
                      (p_.sacketh->bitmap_base().value() + 63) & wire::kPsnMask);
        out_.push_back({arg.pos, "SACKETH.sacked", expected_text(arg.value, psn_list_text(*want)),
                        psn_list_text(got.sacked),
                        std::string(base) + "; the PSNs after the cumulative PSN " +
                            psn_list_text(std::span(&cumulative, 1)) + " it reports received"});
      }
      if (!got.missing_at_or_before.empty()) {
        out_.push_back({arg.pos, "SACKETH.bitmap", "every PSN at or before the cumulative PSN",
                        "missing " + psn_list_text(got.missing_at_or_before),
                        "spec 19.3: PSNs at or before the cumulative PSN count as received"});
      }
    }
    return {};
  }

  Expected<void, SynthesisError> raw(const Layer& l) {
    for (const auto& arg : l.args) {
      if (arg.value.kind == Expr::Kind::kWildcard) continue;
      if (arg.name == "len") {  // a harness extension: check the length only
        auto n = evaluate_number(arg.value, symbols_);
        if (!n) return Unexpected(SynthesisError{arg.pos, "Raw.len: " + n.error()});
        if (*n != p_.payload.size()) {
          out_.push_back({arg.pos, "Raw.len", expected_text(arg.value, std::to_string(*n)),
                          std::to_string(p_.payload.size())});
        }
        continue;
      }
      if (arg.name != "load")
        return Unexpected(SynthesisError{arg.pos, "Raw has only 'load' (and 'len' on expect)"});
      auto b = evaluate_bytes(arg.value, symbols_);
      if (!b) return Unexpected(SynthesisError{arg.pos, "Raw.load: " + b.error()});
      if (const auto d = first_difference(*b, p_.payload)) {
        out_.push_back({arg.pos, "Raw.load", d->expected, d->actual,
                        std::to_string(b->size()) + "-byte payload expected, " +
                            std::to_string(p_.payload.size()) + " came; it differs " +
                            d->summary(b->size())});
      }
    }
    return {};
  }

  void check_addresses(const script::Position& where) {
    if (const auto* v4 = std::get_if<wire::Ipv4>(&p_.ip); v4 && !(v4->dst == c_.tester_ip)) {
      out_.push_back({where, "IP.dst", c_.tester_ip.to_string(), v4->dst.to_string()});
    }
    const auto* v6 = std::get_if<wire::Ipv6>(&p_.ip);
    if (v6 && !(c_.tester_ip6 && v6->dst == *c_.tester_ip6)) {
      out_.push_back({where, "IPv6.dst",
                      c_.tester_ip6 ? c_.tester_ip6->to_string() : "no IPv6 address",
                      v6->dst.to_string()});
    }
    // A connection is one address family: a DUT that answers an IPv6 QP over IPv4 (or the
    // reverse) has the wrong address vector, whatever the script names.
    if (c_.ipv6() != (v6 != nullptr)) {
      out_.push_back({where, "IP version", c_.ipv6() ? "IPv6" : "IPv4", v6 ? "IPv6" : "IPv4"});
    }
  }

  const wire::DecodedRoce& actual_;
  const wire::RocePacket& p_;
  const ConnectionDefaults& c_;
  const SymbolTable& symbols_;
  std::vector<FieldMismatch> out_;
  bool dqpn_given_ = false;
  bool version_given_ = false;
  bool deth_given_ = false;
  bool icrc_wildcard_ = false;
};

}  // namespace

Expected<std::vector<FieldMismatch>, SynthesisError> match(const script::PacketExpr& expected,
                                                           const wire::DecodedRoce& actual,
                                                           const ConnectionDefaults& c,
                                                           const SymbolTable& symbols) {
  FrameMatch m(actual, c, symbols);
  for (const Layer& l : expected.layers) {
    if (auto ok = m.layer(l); !ok) return Unexpected(ok.error());
  }
  return m.implicit_checks(expected.layers.empty() ? script::Position{}
                                                   : expected.layers.front().pos);
}

}  // namespace mr::engine
