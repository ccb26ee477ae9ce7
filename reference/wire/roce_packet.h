// File: roce_packet.h
//
// One RoCEv2 frame as value-type headers: Ether / [Dot1Q] / IP or IPv6 / UDP / BTH /
// the extended headers the opcode implies / payload / pad / [SecTag] / ICRC. Which headers
// the opcode implies depends on the BTH: Part I's for TVer 0, table 19.1's (MXH, SACKETH,
// ...) for an Ext packet (TVer 1), behind a SECH and with a SecTag when SX is set. Payload and pad
// are borrowed spans: a decoded packet points into the frame it came from, a packet being built
// points at the caller's bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <variant>

#include "reference/wire/aeth.h"
#include "reference/wire/aeth_syndrome.h"
#include "reference/wire/atomic_ack_eth.h"
#include "reference/wire/atomic_eth.h"
#include "reference/wire/bth.h"
#include "reference/wire/cnp_padding.h"
#include "reference/wire/creth.h"
#include "reference/wire/deth.h"
#include "reference/wire/ether.h"
#include "reference/wire/feth.h"
#include "reference/wire/ieth.h"
#include "reference/wire/imm_dt.h"
#include "reference/wire/ipv4.h"
#include "reference/wire/ipv6.h"
#include "reference/wire/mxh.h"
#include "reference/wire/opcode.h"
#include "reference/wire/rdeth.h"
#include "reference/wire/reth.h"
#include "reference/wire/rsyneth.h"
#include "reference/wire/sacketh.h"
#include "reference/wire/sech.h"
#include "reference/wire/udp.h"

namespace mr::wire {

struct RocePacket {
  Ether eth;
  std::optional<Dot1Q> vlan;
  std::variant<Ipv4, Ipv6> ip;
  Udp udp;
  Bth bth;
  // Extended headers in wire order (IBTA 9.2, rxe_opcode.c offsets; spec table 19.1).
  std::optional<Sech> sech;
  std::optional<Rdeth> rdeth;
  std::optional<Deth> deth;
  std::optional<Feth> feth;
  std::optional<Mxh> mxh;
  std::optional<Reth> reth;
  std::optional<AtomicEth> atomic_eth;
  std::optional<ImmDt> imm_dt;
  std::optional<Ieth> ieth;
  std::optional<Aeth> aeth;
  std::optional<AtomicAckEth> atomic_ack_eth;
  std::optional<Sacketh> sacketh;
  std::optional<Creth> creth;
  std::optional<Rsyneth> rsyneth;
  std::optional<CnpPadding> cnp_padding;
  std::span<const uint8_t> payload;  // without the pad bytes (ciphertext on a secure QP)
  std::span<const uint8_t> pad;      // bth.padcount bytes, normally zero
  std::optional<SecTag> sec_tag;     // secure packets: the tag between pad and ICRC
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
    for_each_trailer(f);
  }
  // Calls f(bit, slot) for each extended-header slot (a std::optional), in wire order: the
  // one list that decoding, building, JSON and for_each_extension all follow.
  template <class Self, class F>
  static void for_each_extension_slot(Self& p, F&& f) {
    f(kSech, p.sech);
    f(kRdeth, p.rdeth);
    f(kDeth, p.deth);
    f(kFeth, p.feth);
    f(kMxh, p.mxh);
    f(kReth, p.reth);
    f(kAtomicEth, p.atomic_eth);
    f(kImmDt, p.imm_dt);
    f(kIeth, p.ieth);
    f(kAeth, p.aeth);
    f(kAtomicAckEth, p.atomic_ack_eth);
    f(kSacketh, p.sacketh);
    f(kCreth, p.creth);
    f(kRsyneth, p.rsyneth);
    f(kCnpPadding, p.cnp_padding);
  }
  template <class F>
  void for_each_extension(F&& f) const {
    for_each_extension_slot(*this, [&](HeaderBit, const auto& slot) {
      if (slot) f(*slot);
    });
  }
  // What follows the payload and pad, before the ICRC.
  template <class F>
  void for_each_trailer(F&& f) const {
    if (sec_tag) f(*sec_tag);
  }
};

// Whether an Ext ACK or NAK shows its cumulative PSN C only in its SACK bitmap (section 19.3):
// a NAK's BTH PSN is the packet it refuses, an ATOMIC_ACKNOWLEDGE's its ATOMIC's (MR-AT-06).
// Then p.sacketh->cumulative(p.bth.psn, true) reads C from the bitmap.
inline bool cumulative_in_bitmap(const RocePacket& p) {
  return (p.aeth && !is_ack(p.aeth->syndrome.value())) || p.bth.opcode == kOpRcAtomicAcknowledge;
}

}  // namespace mr::wire
