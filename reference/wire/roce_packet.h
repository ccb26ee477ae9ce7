// File: roce_packet.h
//
// One RoCEv2 frame as value-type headers: Ether / [Dot1Q] / IP or IPv6 / UDP / BTH /
// the extended headers the opcode implies / payload / pad / ICRC. Payload and pad are
// borrowed spans: a decoded packet points into the frame it came from, a packet being
// built points at the caller's bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <variant>

#include "reference/wire/aeth.h"
#include "reference/wire/atomic_ack_eth.h"
#include "reference/wire/atomic_eth.h"
#include "reference/wire/bth.h"
#include "reference/wire/cnp_padding.h"
#include "reference/wire/deth.h"
#include "reference/wire/ether.h"
#include "reference/wire/feth.h"
#include "reference/wire/ieth.h"
#include "reference/wire/imm_dt.h"
#include "reference/wire/ipv4.h"
#include "reference/wire/ipv6.h"
#include "reference/wire/rdeth.h"
#include "reference/wire/reth.h"
#include "reference/wire/udp.h"

namespace mr::wire {

struct RocePacket {
  Ether eth;
  std::optional<Dot1Q> vlan;
  std::variant<Ipv4, Ipv6> ip;
  Udp udp;
  Bth bth;
  // Extended headers in wire order (IBTA 9.2, rxe_opcode.c offsets).
  std::optional<Rdeth> rdeth;
  std::optional<Deth> deth;
  std::optional<Feth> feth;
  std::optional<Reth> reth;
  std::optional<AtomicEth> atomic_eth;
  std::optional<ImmDt> imm_dt;
  std::optional<Ieth> ieth;
  std::optional<Aeth> aeth;
  std::optional<AtomicAckEth> atomic_ack_eth;
  std::optional<CnpPadding> cnp_padding;
  std::span<const uint8_t> payload;  // without the pad bytes
  std::span<const uint8_t> pad;      // bth.padcount bytes, normally zero
  u32 icrc;                          // as Scapy shows it: the wire bytes read big-endian

  bool is_ipv6() const { return std::holds_alternative<Ipv6>(ip); }

  // Calls f(header) for each header present, in wire order (L2 to transport).
  template <class F>
  void for_each_header(F&& f) const {
    f(eth);
    for_each_header_after_ether(f);
  }
  // The same without the Ethernet header (a cooked capture's frame has none).
  template <class F>
  void for_each_header_after_ether(F&& f) const {
    if (vlan) f(*vlan);
    std::visit(f, ip);
    f(udp);
    f(bth);
    for_each_extension(f);
  }
  template <class F>
  void for_each_extension(F&& f) const {
    if (rdeth) f(*rdeth);
    if (deth) f(*deth);
    if (feth) f(*feth);
    if (reth) f(*reth);
    if (atomic_eth) f(*atomic_eth);
    if (imm_dt) f(*imm_dt);
    if (ieth) f(*ieth);
    if (aeth) f(*aeth);
    if (atomic_ack_eth) f(*atomic_ack_eth);
    if (cnp_padding) f(*cnp_padding);
  }
};

}  // namespace mr::wire
