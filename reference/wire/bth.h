// File: bth.h
//
// Base Transport Header (IBTA 9.2), 12 bytes, with Scapy's field names:
//   byte 0      opcode
//   byte 1      solicited(1) migreq(1) padcount(2) version(4)
//   bytes 2-3   pkey
//   byte 4      fecn(1) becn(1) resv6(6)      (masked out of the ICRC)
//   bytes 5-7   dqpn
//   byte 8      ackreq(1) resv7(7)        (in an Ext packet, resv7 bit 6 is SX)
//   bytes 9-11  psn
#pragma once

#include <string>
#include <string_view>

#include "reference/wire/byte_reader.h"
#include "reference/wire/byte_writer.h"
#include "reference/wire/header_sizes.h"
#include "reference/wire/opcode.h"
#include "reference/wire/uint_n.h"

namespace mr::wire {

struct Bth {
  static constexpr std::string_view kName = "BTH";
  static constexpr unsigned kSize = kBthSize;
  // SX (spec section 19.4): in an Ext packet (TVer 1), this bit of resv7 says that a SECH
  // follows the BTH and a tag precedes the ICRC. The field keeps Scapy's name and width.
  static constexpr uint8_t kResv7Sx = 0x40;

  u8 opcode;
  u1 solicited;
  u1 migreq;
  u2 padcount;
  u4 version;
  u16 pkey = 0xffff;
  u1 fecn;
  u1 becn;
  u6 resv6;
  u24 dqpn;
  u1 ackreq;
  u7 resv7;
  u24 psn;

  void read(ByteReader& r);
  void write(ByteWriter& w) const;

  constexpr bool is_ext() const { return version == kExtVersion; }
  constexpr bool sx() const { return is_ext() && (resv7.value() & kResv7Sx) != 0; }
  // The table that says which headers follow this BTH.
  constexpr HeaderSet header_set() const {
    if (!is_ext()) return HeaderSet::kBase;
    return sx() ? HeaderSet::kExtSecure : HeaderSet::kExt;
  }

  template <class Self, class F>
  static void fields(Self& s, F&& f) {
    f("opcode", s.opcode);
    f("solicited", s.solicited);
    f("migreq", s.migreq);
    f("padcount", s.padcount);
    f("version", s.version);
    f("pkey", s.pkey);
    f("fecn", s.fecn);
    f("becn", s.becn);
    f("resv6", s.resv6);
    f("dqpn", s.dqpn);
    f("ackreq", s.ackreq);
    f("resv7", s.resv7);
    f("psn", s.psn);
  }
  friend bool operator==(const Bth&, const Bth&) = default;
};

// The opcode's name in the table this BTH selects ("RC_PROBE" exists under TVer 1 only).
inline std::string opcode_name(const Bth& bth) { return opcode_name(bth.opcode, bth.header_set()); }

}  // namespace mr::wire
