// File: udp.h
//
// UDP header (8 bytes) with Scapy's names: sport dport len chksum. RoCEv2 uses dport 4791
// and the source port as flow entropy; the checksum is masked out of the ICRC.
#pragma once

#include <string_view>

#include "reference/wire/byte_reader.h"
#include "reference/wire/byte_writer.h"
#include "reference/wire/uint_n.h"

namespace mr::wire {

struct Udp {
  static constexpr std::string_view kName = "UDP";
  static constexpr unsigned kSize = 8;

  u16 sport = 0xc000;
  u16 dport = 4791;
  u16 len;
  u16 chksum;

  void read(ByteReader& r) {
    sport = r.u16();
    dport = r.u16();
    len = r.u16();
    chksum = r.u16();
  }
  void write(ByteWriter& w) const {
    HeaderBytes<kSize> b;  // composed locally: every frame has one (HeaderBytes says why)
    b.u16(sport);
    b.u16(dport);
    b.u16(len);
    b.u16(chksum);
    w.bytes(b.written());
  }
  template <class Self, class F>
  static void fields(Self& s, F&& f) {
    f("sport", s.sport);
    f("dport", s.dport);
    f("len", s.len);
    f("chksum", s.chksum);
  }
  friend bool operator==(const Udp&, const Udp&) = default;
};

}  // namespace mr::wire
