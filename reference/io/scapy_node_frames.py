#!/usr/bin/python3
"""Scapy's bytes for the frames a Node sends, one "name hex" line each.

The independent oracle for node_test: Scapy builds ARP, neighbour discovery and echo
frames from the same addresses, and computes lengths and checksums (IPv4 header, ICMP,
the ICMPv6 pseudo-header checksum) on its own. Addresses must match node_test.cpp.
"""
import sys

from scapy.layers.inet import ICMP, IP
from scapy.layers.inet6 import (ICMPv6EchoReply, ICMPv6EchoRequest, ICMPv6ND_NA,
                                ICMPv6ND_NS, ICMPv6NDOptDstLLAddr, ICMPv6NDOptSrcLLAddr,
                                IPv6)
from scapy.layers.l2 import ARP, Ether
from scapy.packet import Raw
from scapy.utils6 import in6_getnsma, in6_getnsmac, in6_mactoifaceid
from socket import AF_INET6, inet_ntop, inet_pton

MAC_A, MAC_B = "02:00:00:00:00:0a", "02:00:00:00:00:0b"
IP_A, IP_B = "198.18.0.1", "198.18.0.2"
LL_A = "fe80::" + in6_mactoifaceid(MAC_A)
LL_B = "fe80::" + in6_mactoifaceid(MAC_B)
DATA = b"metaroce" + bytes(24)
ECHO_ID_A = 0x000A  # Node's echo id: the last two bytes of its MAC


def pad60(frame):
    raw = bytes(frame)
    return raw + bytes(max(0, 60 - len(raw)))


def main(out):
    sn_b = inet_ntop(AF_INET6, in6_getnsma(inet_pton(AF_INET6, LL_B)))
    frames = {
        "arp_request":
            pad60(Ether(dst="ff:ff:ff:ff:ff:ff", src=MAC_A) /
                  ARP(op=1, hwsrc=MAC_A, psrc=IP_A, hwdst="00:00:00:00:00:00", pdst=IP_B)),
        "arp_reply":
            pad60(Ether(dst=MAC_A, src=MAC_B) /
                  ARP(op=2, hwsrc=MAC_B, psrc=IP_B, hwdst=MAC_A, pdst=IP_A)),
        "neighbor_solicitation":
            bytes(Ether(dst=in6_getnsmac(inet_pton(AF_INET6, sn_b)), src=MAC_A) /
                  IPv6(src=LL_A, dst=sn_b, hlim=255) / ICMPv6ND_NS(tgt=LL_B) /
                  ICMPv6NDOptSrcLLAddr(lladdr=MAC_A)),
        "neighbor_advertisement":
            bytes(Ether(dst=MAC_A, src=MAC_B) / IPv6(src=LL_B, dst=LL_A, hlim=255) /
                  ICMPv6ND_NA(R=0, S=1, O=1, tgt=LL_B) / ICMPv6NDOptDstLLAddr(lladdr=MAC_B)),
        "echo_request_v4":
            bytes(Ether(dst=MAC_B, src=MAC_A) / IP(src=IP_A, dst=IP_B, id=0, flags="DF") /
                  ICMP(type=8, id=ECHO_ID_A, seq=7) / Raw(DATA)),
        "echo_reply_v4":
            bytes(Ether(dst=MAC_A, src=MAC_B) / IP(src=IP_B, dst=IP_A, id=0, flags="DF") /
                  ICMP(type=0, id=ECHO_ID_A, seq=7) / Raw(DATA)),
        "echo_request_v6":
            bytes(Ether(dst=MAC_B, src=MAC_A) / IPv6(src=LL_A, dst=LL_B) /
                  ICMPv6EchoRequest(id=ECHO_ID_A, seq=9, data=DATA)),
        "echo_reply_v6":
            bytes(Ether(dst=MAC_A, src=MAC_B) / IPv6(src=LL_B, dst=LL_A) /
                  ICMPv6EchoReply(id=ECHO_ID_A, seq=9, data=DATA)),
    }
    with open(out, "w") as f:
        for name, raw in frames.items():
            f.write(f"{name} {raw.hex()}\n")


if __name__ == "__main__":
    main(sys.argv[1])
