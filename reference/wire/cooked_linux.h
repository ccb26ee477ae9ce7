// File: cooked_linux.h
//
// The Linux cooked capture headers, which stand where the Ethernet header would in a
// capture of `tcpdump -i any`: SLL (LINKTYPE_LINUX_SLL 113, 16 bytes) and SLL2
// (LINKTYPE_LINUX_SLL2 276, 20 bytes), with Scapy's names (scapy.layers.l2):
//   CookedLinux(pkttype, lladdrtype, lladdrlen, src, proto)
//   CookedLinuxV2(proto, reserved, ifindex, lladdrtype, pkttype, lladdrlen, src)
// `proto` is the ethertype of what follows (0x0800 IPv4, 0x86dd IPv6, 0x8100 an 802.1Q
// tag); `src` is the 8-byte link-layer address field read big-endian, of which the first
// `lladdrlen` bytes are the address (a MAC: 6). Layout: tcpdump.org/linktypes.
//
// Usage (the decoder's): r.need(CookedLinux::kSize, CookedLinux::kName); h.read(r);
#pragma once

#include <string_view>

#include "reference/wire/byte_reader.h"
#include "reference/wire/uint_n.h"

namespace mr::wire {

struct CookedLinux {
  static constexpr std::string_view kName = "CookedLinux";
  static constexpr unsigned kSize = 16;

  u16 pkttype;     // 0 to us, 1 broadcast, 2 multicast, 3 to another host, 4 sent by us
  u16 lladdrtype;  // ARPHRD_ type: 1 Ethernet
  u16 lladdrlen;
  u64 src;
  u16 proto;

  void read(ByteReader& r) {
    pkttype = r.u16();
    lladdrtype = r.u16();
    lladdrlen = r.u16();
    src = r.u64();
    proto = r.u16();
  }
  template <class Self, class F>
  static void fields(Self& s, F&& f) {
    f("pkttype", s.pkttype);
    f("lladdrtype", s.lladdrtype);
    f("lladdrlen", s.lladdrlen);
    f("src", s.src);
    f("proto", s.proto);
  }
  friend bool operator==(const CookedLinux&, const CookedLinux&) = default;
};

struct CookedLinuxV2 {
  static constexpr std::string_view kName = "CookedLinuxV2";
  static constexpr unsigned kSize = 20;

  u16 proto;
  u16 reserved;
  u32 ifindex;
  u16 lladdrtype;
  u8 pkttype;
  u8 lladdrlen;
  u64 src;

  void read(ByteReader& r) {
    proto = r.u16();
    reserved = r.u16();
    ifindex = r.u32();
    lladdrtype = r.u16();
    pkttype = r.u8();
    lladdrlen = r.u8();
    src = r.u64();
  }
  template <class Self, class F>
  static void fields(Self& s, F&& f) {
    f("proto", s.proto);
    f("reserved", s.reserved);
    f("ifindex", s.ifindex);
    f("lladdrtype", s.lladdrtype);
    f("pkttype", s.pkttype);
    f("lladdrlen", s.lladdrlen);
    f("src", s.src);
  }
  friend bool operator==(const CookedLinuxV2&, const CookedLinuxV2&) = default;
};

}  // namespace mr::wire
