#include "harness/engine/frame_summary.h"

#include <cstdio>

#include "harness/engine/evaluate.h"
#include "reference/wire/frame_decoder.h"
#include "reference/wire/opcode.h"
#include "reference/wire/packet_json.h"
#include "reference/wire/wide_integer.h"

namespace mr::engine {

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
