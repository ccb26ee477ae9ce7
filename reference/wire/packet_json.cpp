#include "reference/wire/packet_json.h"

#include <string>
#include <type_traits>

#include "reference/wire/opcode.h"

namespace mr::wire {
namespace {

std::string hex(std::span<const uint8_t> bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s;
  s.reserve(bytes.size() * 2);
  for (uint8_t b : bytes) {
    s.push_back(kDigits[b >> 4]);
    s.push_back(kDigits[b & 0xf]);
  }
  return s;
}

template <class H>
nlohmann::ordered_json header_json(const H& h) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  H::fields(h, [&](const char* name, const auto& field) {
    using T = std::remove_cvref_t<decltype(field)>;
    if constexpr (std::is_same_v<T, MacAddress> || std::is_same_v<T, Ipv4Address> ||
                  std::is_same_v<T, Ipv6Address>) {
      j[name] = field.to_string();
    } else {
      j[name] = field.value();
    }
  });
  return j;
}

}  // namespace

nlohmann::ordered_json to_json(const DecodedRoce& d) {
  const RocePacket& p = d.packet;
  nlohmann::ordered_json j;
  j["roce"] = true;
  j["opcode_name"] = opcode_name(p.bth.opcode);
  auto& layers = j["layers"] = nlohmann::ordered_json::array();
  p.for_each_header([&](const auto& h) { layers.push_back(std::string(h.kName)); });
  p.for_each_header([&](const auto& h) { j[std::string(h.kName)] = header_json(h); });
  j["payload"] = hex(p.payload);
  j["payload_len"] = p.payload.size();
  j["pad"] = hex(p.pad);
  j["icrc"] = p.icrc.value();
  j["icrc_ok"] = d.icrc_ok();
  if (!d.opcode_known) j["opcode_known"] = false;
  return j;
}

nlohmann::ordered_json to_json(const NotRoce& n) {
  nlohmann::ordered_json j;
  j["roce"] = false;
  j["not_roce"] = n.to_string();
  return j;
}

nlohmann::ordered_json to_json(const ParseError& e) {
  nlohmann::ordered_json j;
  j["roce"] = false;
  j["error"] = {
      {"header", e.header}, {"field", e.field}, {"offset", e.offset}, {"reason", e.reason}};
  return j;
}

}  // namespace mr::wire
