#include "harness/engine/entropy_check.h"

#include <algorithm>
#include <optional>

#include "harness/analyze/flow_label_port.h"
#include "harness/engine/packet_synthesis.h"

namespace mr::engine {
namespace {

const protocol::EvEntry* find_ev(const ExpectedEvSet& set, uint64_t ev) {
  auto it = std::ranges::find(set.entries, ev, &protocol::EvEntry::ev);
  return it == set.entries.end() ? nullptr : &*it;
}

std::string listed(const ExpectedEvSet& set) {
  std::string out = "one of the QP's EV set [";
  for (size_t i = 0; i < set.entries.size() && i < 8; ++i) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%s0x%04llx", i == 0 ? "" : ", ",
                  static_cast<unsigned long long>(set.entries[i].ev));
    out += buf;
  }
  return out + (set.entries.size() > 8 ? ", ...]" : "]");
}

// The EV the packet's UDP port or flow label carries, and how it is encoded: UDP mode when
// the port is an entry's EV, else FLOW mode when the flow label names an entry and the port
// is its fold. nullopt when neither.
std::optional<uint64_t> encoded_ev(const ExpectedEvSet& set, const wire::RocePacket& p) {
  if (find_ev(set, p.udp.sport) != nullptr) return p.udp.sport;
  if (!p.is_ipv6()) return std::nullopt;
  const uint32_t fl = std::get<wire::Ipv6>(p.ip).fl.value();
  if (find_ev(set, fl & 0xffff) != nullptr && p.udp.sport == analyze::flow_label_udp_port(fl))
    return fl & 0xffff;
  return std::nullopt;
}

}  // namespace

ExpectedEvSet default_ev_set(uint32_t qpn, uint32_t count) {
  ExpectedEvSet set;
  for (uint32_t i = 0; i < count; ++i)
    set.entries.push_back({.ev = 0xC000 | ((16ULL * qpn + i) % (1U << 14)), .plane = 0});
  return set;
}

std::vector<EntropyProblem> entropy_problems(const ExpectedEvSet& set,
                                             const wire::DecodedRoce& roce) {
  const wire::RocePacket& p = roce.packet;
  std::vector<EntropyProblem> out;
  if (p.bth.version.value() != 1 || set.entries.empty()) return out;
  const uint16_t sport = p.udp.sport;
  if (!p.mxh) {
    if (!encoded_ev(set, p)) {
      out.push_back({"UDP.sport", listed(set) + " (EV mode UDP) or the fold of a flow label",
                     format_value(sport, 16), "MR-MU-02"});
    }
    return out;
  }
  const uint64_t ev = p.mxh->ev.value();
  const protocol::EvEntry* entry = find_ev(set, ev);
  if (entry == nullptr) {
    out.push_back(
        {"MXH.ev", listed(set), format_value(ev, 16), set.planes_known ? "MR-MU-10" : "MR-MU-11"});
    return out;
  }
  if (set.planes_known && p.mxh->plane.value() != entry->plane) {
    out.push_back({"MXH.plane", format_value(entry->plane, 8) + " (the plane of its EV's entry)",
                   format_value(p.mxh->plane.value(), 8), "MR-MU-10"});
  }
  return out;
}

}  // namespace mr::engine
