// File: sacketh.h
//
// Selective ACK Extended Transport Header (spec section 19.3, revision 2), 28 bytes, after
// the AETH (and AtomicAckETH) of every Ext ACK and NAK. Field names are the Scapy layer's:
//   byte 0      ece trm oow prb dup tse ara crv (one bit each, ece the most significant)
//   bytes 1-3   sack_ref
//   bytes 4-11  bitmap        bit i: PSN (base + i) mod 2^24 was received
//   bytes 12-13 ev_echo
//   byte 14     plane_echo
//   byte 15     mpr           granted window, units of 128 PSNs
//   bytes 16-17 ce_count
//   bytes 18-19 service_time  units of 64 ns
//   bytes 20-23 ts_echo
//   bytes 24-25 sack_offset   signed (two's complement); Scapy shows it signed
//   bytes 26-27 credit        units of 256 bytes, valid when crv = 1
#pragma once

#include <cstdint>
#include <string_view>

#include "reference/wire/byte_reader.h"
#include "reference/wire/byte_writer.h"
#include "reference/wire/header_sizes.h"
#include "reference/wire/uint_n.h"

namespace mr::wire {

struct Sacketh {
  static constexpr std::string_view kName = "SACKETH";
  static constexpr unsigned kSize = kSackethSize;

  u1 ece;
  u1 trm;
  u1 oow;
  u1 prb;
  u1 dup;
  u1 tse;
  u1 ara;
  u1 crv;
  u24 sack_ref;
  u64 bitmap;
  u16 ev_echo;
  u8 plane_echo;
  u8 mpr;
  u16 ce_count;
  u16 service_time;
  u32 ts_echo;
  u16 sack_offset;
  u16 credit;

  // O as the spec reads it: the signed distance from sack_ref to the bitmap base.
  constexpr int16_t signed_offset() const { return static_cast<int16_t>(sack_offset.value()); }
  // B = (sack_ref + O) mod 2^24: the PSN that bit 0 stands for.
  constexpr u24 bitmap_base() const { return sack_ref.value() + signed_offset(); }
  // The cumulative PSN C an ACK or NAK reports: an ACK's BTH PSN; for a NAK or an
  // ATOMIC_ACKNOWLEDGE (`from_bitmap`), whose BTH PSN names another packet, R - 1 plus the
  // run of received PSNs the bitmap shows from R (section 19.3).
  constexpr u24 cumulative(u24 bth_psn, bool from_bitmap) const {
    if (!from_bitmap) return bth_psn;
    const uint32_t ref = sack_ref.value();
    const uint32_t from = u24(ref - bitmap_base().value()).value();
    uint32_t run = 0;
    while (from + run < 64 && ((bitmap.value() >> (from + run)) & 1) != 0) ++run;
    return ref - 1 + run;
  }
  // Whether the bitmap says `psn` was received (false for PSNs it does not cover).
  constexpr bool acknowledges(u24 psn) const {
    const uint32_t i = u24(psn.value() - bitmap_base().value()).value();
    return i < 64 && ((bitmap.value() >> i) & 1) != 0;
  }

  void read(ByteReader& r) {
    const uint32_t w0 = r.u32();
    const auto flags = static_cast<uint8_t>(w0 >> 24);
    ece = flags >> 7;
    trm = flags >> 6;
    oow = flags >> 5;
    prb = flags >> 4;
    dup = flags >> 3;
    tse = flags >> 2;
    ara = flags >> 1;
    crv = flags;
    sack_ref = w0;
    bitmap = r.u64();
    ev_echo = r.u16();
    plane_echo = r.u8();
    mpr = r.u8();
    ce_count = r.u16();
    service_time = r.u16();
    ts_echo = r.u32();
    sack_offset = r.u16();
    credit = r.u16();
  }
  void write(ByteWriter& w) const {
    w.u8(static_cast<uint8_t>(ece << 7 | trm << 6 | oow << 5 | prb << 4 | dup << 3 | tse << 2 |
                              ara << 1 | crv));
    w.u24(sack_ref);
    w.u64(bitmap);
    w.u16(ev_echo);
    w.u8(plane_echo);
    w.u8(mpr);
    w.u16(ce_count);
    w.u16(service_time);
    w.u32(ts_echo);
    w.u16(sack_offset);
    w.u16(credit);
  }
  template <class Self, class F>
  static void fields(Self& s, F&& f) {
    f("ece", s.ece);
    f("trm", s.trm);
    f("oow", s.oow);
    f("prb", s.prb);
    f("dup", s.dup);
    f("tse", s.tse);
    f("ara", s.ara);
    f("crv", s.crv);
    f("sack_ref", s.sack_ref);
    f("bitmap", s.bitmap);
    f("ev_echo", s.ev_echo);
    f("plane_echo", s.plane_echo);
    f("mpr", s.mpr);
    f("ce_count", s.ce_count);
    f("service_time", s.service_time);
    f("ts_echo", s.ts_echo);
    f("sack_offset", s.sack_offset);
    f("credit", s.credit);
  }
  friend bool operator==(const Sacketh&, const Sacketh&) = default;
};

}  // namespace mr::wire
