#include "reference/wire/packet_json.h"

#include <string>
#include <type_traits>

#include "reference/wire/opcode.h"
#include "reference/wire/wide_integer.h"

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
    if constexpr (TextField<T>) {
      j[name] = field.to_string();
    } else if constexpr (T::kBits > kExactJsonIntegerBits) {
      j[name] = wide_integer(field.value());  // RETH.va, AtomicETH.swap: exact in jq too
    } else {
      j[name] = field.value();
    }
  });
  return j;
}

// A field's value from JSON: an unsigned integer, or for a field wider than 53 bits also
// the decimal or 0x string that to_json writes above 2^53 - 1.
template <class T>
Expected<uint64_t, std::string> field_value(const nlohmann::json& v, const std::string& where) {
  if (T::kBits > kExactJsonIntegerBits && v.is_string()) {
    const auto n = parse_integer_text(v.get_ref<const std::string&>());
    if (!n) return Unexpected(where + ": " + v.dump() + " is not an unsigned integer");
    return *n;
  }
  if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<int64_t>() >= 0))
    return Unexpected(where + ": " + v.dump() + " is not an unsigned integer");
  return v.get<uint64_t>();
}

Expected<std::vector<uint8_t>, std::string> unhex(const nlohmann::json& j, const char* key) {
  if (!j.is_string()) return Unexpected(std::string(key) + ": expected a hex string");
  const auto& s = j.get_ref<const std::string&>();
  if (s.size() % 2 != 0) return Unexpected(std::string(key) + ": odd number of hex digits");
  std::vector<uint8_t> out(s.size() / 2);
  for (size_t i = 0; i < out.size(); ++i) {
    unsigned v = 0;
    for (char c : {s[2 * i], s[2 * i + 1]}) {
      v <<= 4;
      if (c >= '0' && c <= '9') {
        v |= static_cast<unsigned>(c - '0');
      } else if (c >= 'a' && c <= 'f') {
        v |= static_cast<unsigned>(c - 'a' + 10);
      } else if (c >= 'A' && c <= 'F') {
        v |= static_cast<unsigned>(c - 'A' + 10);
      } else {
        return Unexpected(std::string(key) + ": '" + c + "' is not a hex digit");
      }
    }
    out[i] = static_cast<uint8_t>(v);
  }
  return out;
}

// Sets the fields of header h from the object j; errors name Layer.field.
template <class H>
Expected<void, std::string> header_from_json(const nlohmann::json& j, H& h) {
  const std::string layer(H::kName);
  if (!j.is_object()) return Unexpected(layer + ": expected an object of fields");
  size_t known = 0;
  std::string error;
  H::fields(h, [&](const char* name, auto& field) {
    const auto it = j.find(name);
    if (it == j.end() || !error.empty()) return;
    ++known;
    using T = std::remove_cvref_t<decltype(field)>;
    const std::string where = layer + "." + name;
    if constexpr (TextField<T>) {
      const auto a = it->is_string() ? T::parse(it->template get<std::string>()) : std::nullopt;
      if (!a) {
        error = where + ": " + it->dump() + " is not " + text_field_kind<T>();
      } else {
        field = *a;
      }
    } else {
      if (const auto v = field_value<T>(*it, where); !v) {
        error = v.error();
      } else if (!T::fits(*v)) {
        error = where + ": " + std::to_string(*v) + " does not fit in " + std::to_string(T::kBits) +
                " bits";
      } else {
        field = *v;
      }
    }
  });
  if (!error.empty()) return Unexpected(error);
  if (known != j.size()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      const std::string& key = it.key();
      bool found = false;
      H::fields(h, [&](const char* name, auto&) { found = found || key == name; });
      if (!found) {
        std::string message = layer;
        message.append(".").append(key).append(": no such field");
        return Unexpected(std::move(message));
      }
    }
  }
  return {};
}

template <class H>
Expected<void, std::string> optional_from_json(const nlohmann::json& j, std::optional<H>& slot) {
  const auto it = j.find(std::string(H::kName));
  if (it == j.end()) return {};
  return header_from_json(*it, slot.emplace());
}

}  // namespace

RocePacket OwnedPacket::view() const {
  RocePacket p = headers;
  p.payload = payload;
  p.pad = pad;
  return p;
}

Expected<OwnedPacket, std::string> packet_from_json(const nlohmann::json& j) {
  if (!j.is_object()) return Unexpected(std::string("expected a JSON object"));
  OwnedPacket out;
  RocePacket& p = out.headers;
  Expected<void, std::string> ok;
  if (j.contains("Ether") && !(ok = header_from_json(j["Ether"], p.eth)))
    return Unexpected(ok.error());
  if (!(ok = optional_from_json(j, p.vlan))) return Unexpected(ok.error());
  if (j.contains("IP") && j.contains("IPv6"))
    return Unexpected(std::string("both IP and IPv6 given"));
  if (j.contains("IPv6")) {
    Ipv6 ip;
    if (!(ok = header_from_json(j["IPv6"], ip))) return Unexpected(ok.error());
    p.ip = ip;
  } else if (j.contains("IP")) {
    Ipv4 ip;
    if (!(ok = header_from_json(j["IP"], ip))) return Unexpected(ok.error());
    p.ip = ip;
  }
  if (j.contains("UDP") && !(ok = header_from_json(j["UDP"], p.udp))) return Unexpected(ok.error());
  if (j.contains("BTH") && !(ok = header_from_json(j["BTH"], p.bth))) return Unexpected(ok.error());
  RocePacket::for_each_extension_slot(p, [&](HeaderBit, auto& slot) {
    if (ok) ok = optional_from_json(j, slot);
  });
  if (ok) ok = optional_from_json(j, p.sec_tag);
  if (!ok) return Unexpected(ok.error());
  for (auto [key, bytes] : {std::pair{"payload", &out.payload}, std::pair{"pad", &out.pad}}) {
    if (!j.contains(key)) continue;
    auto b = unhex(j[key], key);
    if (!b) return Unexpected(b.error());
    *bytes = std::move(*b);
  }
  if (j.contains("icrc")) {
    if (!j["icrc"].is_number_unsigned() || !u32::fits(j["icrc"].get<uint64_t>())) {
      return Unexpected(std::string("icrc: expected a 32-bit unsigned integer"));
    }
    p.icrc = j["icrc"].get<uint64_t>();
  }
  return out;
}

nlohmann::ordered_json to_json(const DecodedRoce& d) {
  const RocePacket& p = d.packet;
  nlohmann::ordered_json j;
  j["roce"] = true;
  j["opcode_name"] = opcode_name(p.bth);
  auto& layers = j["layers"] = nlohmann::ordered_json::array();
  d.for_each_header([&](const auto& h) { layers.push_back(std::string(h.kName)); });
  d.for_each_header([&](const auto& h) { j[std::string(h.kName)] = header_json(h); });
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

nlohmann::ordered_json to_json(const MalformedFrame& m) {
  nlohmann::ordered_json j;
  j["roce"] = false;
  if (const Bth* bth = m.bth()) j["opcode_name"] = opcode_name(*bth);
  auto& layers = j["layers"] = nlohmann::ordered_json::array();
  m.for_each_parsed_header([&](const auto& h) { layers.push_back(std::string(h.kName)); });
  m.for_each_parsed_header([&](const auto& h) { j[std::string(h.kName)] = header_json(h); });
  j.update(to_json(m.error));
  return j;
}

}  // namespace mr::wire
