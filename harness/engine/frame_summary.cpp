#include "harness/engine/frame_summary.h"

#include <cstdio>
#include <utility>

#include "harness/engine/evaluate.h"
#include "reference/wire/frame_decoder.h"
#include "reference/wire/opcode.h"
#include "reference/wire/packet_json.h"
#include "reference/wire/psn.h"
#include "reference/wire/wide_integer.h"

namespace mr::engine {

namespace {

// An Ext packet's path and transmission: "; plane 2 ev 0xc103 retx".
std::string mxh_summary(const wire::Mxh& m) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "; plane %u ev 0x%04x%s%s", m.plane.value(), m.ev.value(),
                m.retx.value() != 0 ? " retx" : "", m.ar.value() != 0 ? " ar" : "");
  return buf;
}

// What an Ext ACK or NAK reports: its cumulative PSN, the PSNs after it the bitmap shows
// received as ranges, the EV it echoes and its flags: "; C 0x00a0 sacked 0x00a2-0x00a5,0x00a8
// ev_echo 0xc103 ara".
std::string sack_summary(const wire::RocePacket& p) {
  const wire::Sacketh& s = *p.sacketh;
  const uint32_t c = s.cumulative(p.bth.psn, wire::cumulative_in_bitmap(p)).value();
  char buf[48];
  std::snprintf(buf, sizeof buf, "; C 0x%06x sacked ", c);
  std::string out = buf;
  const uint32_t base = s.bitmap_base().value();
  bool any = false;
  for (uint32_t i = 0; i < 64;) {
    const uint32_t psn = (base + i) & wire::kPsnMask;
    if (((s.bitmap.value() >> i) & 1) == 0 || wire::psn_diff(psn, c) <= 0) {
      ++i;
      continue;
    }
    uint32_t last = i;
    while (last + 1 < 64 && ((s.bitmap.value() >> (last + 1)) & 1) != 0) ++last;
    std::snprintf(buf, sizeof buf, "%s0x%06x", any ? "," : "", psn);
    out += buf;
    if (last > i) {
      std::snprintf(buf, sizeof buf, "-0x%06x", (base + last) & wire::kPsnMask);
      out += buf;
    }
    any = true;
    i = last + 1;
  }
  if (!any) out += "none";
  std::snprintf(buf, sizeof buf, " ev_echo 0x%04x", s.ev_echo.value());
  out += buf;
  for (const auto& [set, name] : {std::pair{s.ara.value(), " ara"},
                                  {s.dup.value(), " dup"},
                                  {s.ece.value(), " ece"},
                                  {s.trm.value(), " trm"},
                                  {s.prb.value(), " prb"},
                                  {s.oow.value(), " oow"}})
    if (set != 0) out += name;
  return out;
}

}  // namespace

std::string frame_summary(std::span<const uint8_t> frame) {
  auto d = wire::decode_frame(frame);
  if (!d) return "malformed: " + d.error().to_string();
  const auto* r = std::get_if<wire::DecodedRoce>(&*d);
  if (!r) return "not RoCE: " + std::get<wire::NotRoce>(*d).to_string();
  const auto& p = r->packet;
  char buf[160];
  std::snprintf(buf, sizeof buf, "%s psn 0x%06x dqpn 0x%06x%s",
                wire::opcode_name(p.bth.opcode).c_str(), p.bth.psn.value(), p.bth.dqpn.value(),
                p.bth.ackreq ? " ackreq" : "");
  std::string s = buf;
  if (p.aeth) {
    std::snprintf(buf, sizeof buf, " syndrome 0x%02x msn %u", p.aeth->syndrome.value(),
                  p.aeth->msn.value());
    s += buf;
  }
  if (!p.payload.empty()) s += " len " + std::to_string(p.payload.size());
  if (!r->icrc_ok()) s += " BAD-ICRC";
  if (p.mxh) s += mxh_summary(*p.mxh);
  if (p.sacketh && p.aeth) s += sack_summary(p);
  return s;
}

nlohmann::ordered_json decoded_json(std::span<const uint8_t> frame) {
  auto d = wire::decode_frame(frame);
  if (!d) return wire::to_json(d.error());
  if (const auto* r = std::get_if<wire::DecodedRoce>(&*d)) return wire::to_json(*r);
  return wire::to_json(std::get<wire::NotRoce>(*d));
}

nlohmann::ordered_json expected_json(const script::PacketExpr& p, const SymbolTable& symbols) {
  // ordered_json keeps members in a vector: no reference into it survives an insertion.
  nlohmann::ordered_json j;
  nlohmann::ordered_json layers = nlohmann::ordered_json::array();
  for (const auto& l : p.layers) layers.push_back(l.name);
  j["layers"] = layers;
  for (const auto& l : p.layers) {
    nlohmann::ordered_json fields = nlohmann::ordered_json::object();
    for (const auto& a : l.args) {
      if (a.value.kind == script::Expr::Kind::kWildcard) {
        fields[a.name] = "*";
      } else if (a.value.kind == script::Expr::Kind::kName &&
                 syndrome_class(a.value.text) != SyndromeClass::kNone) {
        fields[a.name] = a.value.text;
      } else if (auto v = evaluate_number(a.value, symbols)) {
        fields[a.name] = wire::wide_integer(*v);  // the shape of decode --json
      } else if (auto b = evaluate_bytes(a.value, symbols)) {
        fields[a.name] = std::to_string(b->size()) + " bytes";
      }
    }
    j[l.name] = fields;
  }
  return j;
}

}  // namespace mr::engine
