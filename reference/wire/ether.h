// File: ether.h
//
// Ethernet II header (14 bytes) and the optional 802.1Q tag (4 bytes), with Scapy's names:
// Ether(dst, src, type) and Dot1Q(prio, id, vlan, type).
#pragma once

#include <string_view>

#include "reference/wire/address.h"
#include "reference/wire/byte_reader.h"
#include "reference/wire/byte_writer.h"
#include "reference/wire/uint_n.h"

namespace mr::wire {

inline constexpr uint16_t kEtherTypeIpv4 = 0x0800;
inline constexpr uint16_t kEtherTypeIpv6 = 0x86dd;
inline constexpr uint16_t kEtherTypeDot1Q = 0x8100;

struct Ether {
  static constexpr std::string_view kName = "Ether";
  static constexpr unsigned kSize = 14;

  MacAddress dst;
  MacAddress src;
  u16 type = kEtherTypeIpv4;

  void read(ByteReader& r);
  void write(ByteWriter& w) const;
  template <class Self, class F>
  static void fields(Self& s, F&& f) {
    f("dst", s.dst);
    f("src", s.src);
    f("type", s.type);
  }
  friend bool operator==(const Ether&, const Ether&) = default;
};

struct Dot1Q {
  static constexpr std::string_view kName = "Dot1Q";
  static constexpr unsigned kSize = 4;

  u3 prio;  // PCP: the priority PFC pauses
  u1 id;    // DEI
  u12 vlan;
  u16 type = kEtherTypeIpv4;

  void read(ByteReader& r) {
    const uint16_t tci = r.u16();
    prio = tci >> 13;
    id = tci >> 12;
    vlan = tci;
    type = r.u16();
  }
  void write(ByteWriter& w) const {
    w.u16(static_cast<uint16_t>(prio << 13 | id << 12 | vlan));
    w.u16(type);
  }
  template <class Self, class F>
  static void fields(Self& s, F&& f) {
    f("prio", s.prio);
    f("id", s.id);
    f("vlan", s.vlan);
    f("type", s.type);
  }
  friend bool operator==(const Dot1Q&, const Dot1Q&) = default;
};

}  // namespace mr::wire
