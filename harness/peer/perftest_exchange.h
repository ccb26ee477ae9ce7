// File: perftest_exchange.h
//
// The messages perftest (ib_send_bw, ib_write_lat, ...; Debian 12's perftest 4.5-0.17,
// which calls itself version 6.06) exchanges over TCP before and around its RoCE traffic
// (issue #9). Each exchange is symmetric: the client writes N bytes and reads N, the server
// reads N and writes N, each in one system call:
//   version      16 bytes, a NUL-padded string ("6.06"); both sides need >= 5.70
//   cycle buffer  4 bytes, an int in network order (page size, 4096)
//   cache line    4 bytes, an int in network order (64)
//   MTU           2 bytes, the ibv_mtu enum as decimal text ("3\0" = 1024, "5\0" = 4096)
//   keys        108 bytes, with a GID index set (-x):
//                "%04x:%04x:%06x:%06x:%08x:%016llx:" lid, out_reads, qpn, psn, rkey, vaddr,
//                then the GID's 16 bytes as "%02x:" each, then "%08x:" srqn, NUL-terminated.
// The keys message doubles as the tools' synchronisation handshake: it is exchanged again
// before and after the traffic. Written from the format alone; no perftest code.
//
//   auto keys = parse_perftest_keys(bytes);      // or "perftest keys: field rkey: ..."
//   control.write(format_perftest_keys(mine));
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "reference/error/expected.h"
#include "reference/wire/address.h"

namespace mr::peer {

inline constexpr size_t kPerftestVersionSize = 16;
inline constexpr size_t kPerftestIntSize = 4;
inline constexpr size_t kPerftestMtuSize = 2;
inline constexpr size_t kPerftestKeysSize = 108;
inline constexpr std::string_view kPerftestVersion = "6.06";  // Debian 12's perftest

struct PerftestKeys {
  uint16_t lid = 0;
  uint16_t out_reads = 0;  // outstanding READ/ATOMIC the side allows
  uint32_t qpn = 0;        // 24 bits
  uint32_t psn = 0;        // 24 bits
  uint32_t rkey = 0;
  uint64_t vaddr = 0;  // where the peer may WRITE/READ/ATOMIC
  wire::Ipv6Address gid;
  uint32_t srqn = 0;
};

std::string format_perftest_keys(const PerftestKeys& keys);  // kPerftestKeysSize bytes
Expected<PerftestKeys, std::string> parse_perftest_keys(std::string_view bytes);

std::string format_perftest_version(std::string_view version);  // kPerftestVersionSize bytes
// The tool's version; an error when malformed or older than 5.70 (perftest refuses those).
Expected<std::string, std::string> parse_perftest_version(std::string_view bytes);

std::string format_perftest_int(int32_t value);  // network order
Expected<int32_t, std::string> parse_perftest_int(std::string_view bytes, std::string_view field);

// MTU in bytes (256..4096) <-> the ibv_mtu enum as 2 bytes of text.
std::string format_perftest_mtu(uint32_t mtu_bytes);
Expected<uint32_t, std::string> parse_perftest_mtu(std::string_view bytes);

}  // namespace mr::peer
