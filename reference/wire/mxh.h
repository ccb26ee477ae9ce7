// File: mxh.h
//
// MetaRoCE Extension Header (spec section 19.2), 20 bytes, after the BTH of every Ext
// request, READ response, PROBE and RESYNC (table 19.1). Field names are the Scapy layer's
// (tools/scapy/metaroce.py):
//   byte 0      ver(4) retx(1) tsv(1) ar(1) resv1(1)
//   byte 1      plane
//   bytes 2-3   ev
//   byte 4      pending
//   bytes 5-7   msn
//   byte 8      resv8
//   bytes 9-11  rqsn
//   bytes 12-15 offset
//   bytes 16-19 tx_timestamp
#pragma once

#include <string_view>

#include "reference/wire/byte_reader.h"
#include "reference/wire/byte_writer.h"
#include "reference/wire/header_sizes.h"
#include "reference/wire/opcode.h"
#include "reference/wire/uint_n.h"

namespace mr::wire {

struct Mxh {
  static constexpr std::string_view kName = "MXH";
  static constexpr unsigned kSize = kMxhSize;

  u4 ver = kExtVersion;
  u1 retx;  // a retransmission
  u1 tsv;   // tx_timestamp is valid
  u1 ar;    // ACK request
  u1 resv1;
  u8 plane;
  u16 ev;
  u8 pending;  // CREDIT: the sender's pending demand, units of 4096 bytes
  u24 msn;
  u8 resv8;
  u24 rqsn;
  u32 offset;
  u32 tx_timestamp;  // ns modulo 2^32

  void read(ByteReader& r) {
    const uint8_t b0 = r.u8();
    ver = b0 >> 4;
    retx = b0 >> 3;
    tsv = b0 >> 2;
    ar = b0 >> 1;
    resv1 = b0;
    plane = r.u8();
    ev = r.u16();
    const uint32_t w1 = r.u32();
    pending = w1 >> 24;
    msn = w1;
    const uint32_t w2 = r.u32();
    resv8 = w2 >> 24;
    rqsn = w2;
    offset = r.u32();
    tx_timestamp = r.u32();
  }
  void write(ByteWriter& w) const {
    w.u8(static_cast<uint8_t>(ver << 4 | retx << 3 | tsv << 2 | ar << 1 | resv1));
    w.u8(plane);
    w.u16(ev);
    w.u8(pending);
    w.u24(msn);
    w.u8(resv8);
    w.u24(rqsn);
    w.u32(offset);
    w.u32(tx_timestamp);
  }
  template <class Self, class F>
  static void fields(Self& s, F&& f) {
    f("ver", s.ver);
    f("retx", s.retx);
    f("tsv", s.tsv);
    f("ar", s.ar);
    f("resv1", s.resv1);
    f("plane", s.plane);
    f("ev", s.ev);
    f("pending", s.pending);
    f("msn", s.msn);
    f("resv8", s.resv8);
    f("rqsn", s.rqsn);
    f("offset", s.offset);
    f("tx_timestamp", s.tx_timestamp);
  }
  friend bool operator==(const Mxh&, const Mxh&) = default;
};

}  // namespace mr::wire
