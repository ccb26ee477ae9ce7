#include "harness/cli/frame_text.h"

#include <cstdarg>
#include <cstdio>
#include <type_traits>
#include <utility>
#include <variant>

#include "reference/wire/byte_array.h"
#include "reference/wire/opcode.h"

namespace mr::cli {
namespace {

[[gnu::format(printf, 1, 2)]] std::string printed(const char* format, ...) {
  char buf[160];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buf, sizeof buf, format, args);
  va_end(args);
  return buf;
}

std::string prefix(uint64_t frame, uint64_t time_ns) {
  return printed("%6llu ", static_cast<unsigned long long>(frame)) + seconds_text(time_ns);
}

std::string bth_text(const wire::Bth& bth) {
  return wire::opcode_name(bth) + printed(" dqpn 0x%06x psn 0x%06x%s", bth.dqpn.value(),
                                          bth.psn.value(), bth.ackreq ? " ackreq" : "");
}

std::string aeth_text(const wire::Aeth& aeth) {
  return printed("syndrome 0x%02x msn %u", aeth.syndrome.value(), aeth.msn.value());
}

// Part II headers (spec section 19): the fields a reader follows a flow by.
std::string mxh_text(const wire::Mxh& m) {
  return printed("mxh plane %u ev 0x%04x msn %u rqsn %u offset %u%s%s", m.plane.value(),
                 m.ev.value(), m.msn.value(), m.rqsn.value(), m.offset.value(),
                 m.retx ? " retx" : "", m.ar ? " ar" : "");
}

// The congestion echoes and the credit only when they say something (ECE or a CE count, a
// timestamp echo, a credit limit): a reader follows a window or a grant by them.
std::string sacketh_text(const wire::Sacketh& s) {
  std::string text =
      printed("sack ref 0x%06x base 0x%06x bitmap 0x%016llx mpr %u%s%s", s.sack_ref.value(),
              s.bitmap_base().value(), static_cast<unsigned long long>(s.bitmap.value()),
              s.mpr.value(), s.ara ? " ara" : "", s.trm ? " trm" : "");
  if (s.ece || s.ce_count) text += printed(" ce %u%s", s.ce_count.value(), s.ece ? " ece" : "");
  if (s.tse) text += printed(" ts_echo 0x%08x", s.ts_echo.value());
  if (s.crv) text += printed(" credit %u", s.credit.value());
  return text;
}

std::string sech_text(const wire::Sech& s) {
  return printed("sech epoch %u spi 0x%08x pn %llu", s.epoch.value(), s.spi.value(),
                 static_cast<unsigned long long>(s.pn.value()));
}

std::string reth_text(const wire::Reth& reth) {
  return printed("va 0x%llx rkey 0x%08x dlen %u", static_cast<unsigned long long>(reth.va.value()),
                 reth.rkey.value(), reth.dlen.value());
}

// One parsed header of a refused frame: its Scapy name and the fields that identify it.
std::string header_text(const wire::Ether& h) {
  return "Ether " + h.src.to_string() + " > " + h.dst.to_string() +
         printed(" type 0x%04x", h.type.value());
}
std::string header_text(const wire::CookedLinux& h) {
  return printed("CookedLinux proto 0x%04x", h.proto.value());
}
std::string header_text(const wire::CookedLinuxV2& h) {
  return printed("CookedLinuxV2 proto 0x%04x ifindex %u", h.proto.value(), h.ifindex.value());
}
std::string header_text(const wire::Dot1Q& h) {
  return printed("Dot1Q vlan %u prio %u", h.vlan.value(), h.prio.value());
}
std::string header_text(const wire::Ipv4& h) {
  return "IP " + h.src.to_string() + " > " + h.dst.to_string();
}
std::string header_text(const wire::Ipv6& h) {
  return "IPv6 " + h.src.to_string() + " > " + h.dst.to_string();
}
std::string header_text(const wire::Udp& h) {
  return printed("UDP %u > %u len %u", h.sport.value(), h.dport.value(), h.len.value());
}
std::string header_text(const wire::Bth& h) { return "BTH " + bth_text(h); }
std::string header_text(const wire::Aeth& h) { return "AETH " + aeth_text(h); }
std::string header_text(const wire::Reth& h) { return "RETH " + reth_text(h); }
// The other extended headers: every field, by its Scapy name.
template <class H>
std::string header_text(const H& h) {
  std::string s(H::kName);
  H::fields(h, [&](const char* name, const auto& field) {
    using T = std::remove_cvref_t<decltype(field)>;
    if constexpr (wire::TextField<T>) {
      s += printed(" %s ", name) + field.to_string();
    } else {
      s += printed(" %s %llu", name, static_cast<unsigned long long>(field.value()));
    }
  });
  return s;
}

}  // namespace

// A double has 53 bits and an epoch time in ns needs 61, so "%.9f" of ns / 1e9 was up to
// ~220 ns off: the seconds and the nanoseconds are printed apart.
std::string seconds_text(uint64_t ns) {
  return printed("%llu.%09llu", static_cast<unsigned long long>(ns / 1'000'000'000),
                 static_cast<unsigned long long>(ns % 1'000'000'000));
}

std::string roce_line(uint64_t frame, uint64_t time_ns, const wire::DecodedRoce& d) {
  const auto& p = d.packet;
  const auto [src, dst] = std::visit(
      [](const auto& ip) {
        return std::pair{ip.src.to_string(), ip.dst.to_string()};
      },
      p.ip);
  std::string s = prefix(frame, time_ns) + " " + src + " > " + dst + " " + bth_text(p.bth);
  if (p.sech) s += " " + sech_text(*p.sech);
  if (p.mxh) s += " " + mxh_text(*p.mxh);
  if (p.aeth) s += " " + aeth_text(*p.aeth);
  if (p.sacketh) s += " " + sacketh_text(*p.sacketh);
  if (p.reth) s += " " + reth_text(*p.reth);
  if (p.creth) s += printed(" credit %u", p.creth->credit.value());
  s += printed(" len %zu icrc %s", p.payload.size(), d.icrc_ok() ? "ok" : "BAD");
  return s;
}

std::string malformed_line(uint64_t frame, uint64_t time_ns, const wire::MalformedFrame& m) {
  std::string s = prefix(frame, time_ns);
  const char* separator = " ";
  m.for_each_parsed_header([&](const auto& h) {
    s += separator + header_text(h);
    separator = " / ";
  });
  return s + " [Malformed: " + m.error.to_string() + "]";
}

std::string other_line(uint64_t frame, uint64_t time_ns, std::string_view what) {
  return prefix(frame, time_ns) + " " + std::string(what);
}

}  // namespace mr::cli
