// File: icrc.h
//
// The RoCEv2 Invariant CRC (IBTA Annex A17.3.3): CRC-32 (IEEE 802.3, reflected 0xEDB88320)
// over 8 bytes of 0xFF standing for the masked LRH, then the IP header, UDP header, BTH and
// the rest of the transport packet, with every field that may change in flight set to ones:
//   IPv4: tos, ttl, chksum          IPv6: tc, fl, hlim
//   UDP:  chksum                    BTH:  byte 4 (fecn, becn, resv6)
// The CRC is sent least-significant byte first. `IcrcCalculator::icrc` returns the value
// the way Scapy's `icrc` field and tshark's `infiniband.invariant.crc` show it: the four
// wire bytes read big-endian.
//
// Usage:
//   uint32_t v = IcrcCalculator::icrc(frame.subspan(l3_offset, len_without_icrc));
//
// Fast paths: carry-less multiplication (PCLMULQDQ) folding 64 bytes per step and a Barrett
// reduction where the CPU has it, slice-by-8 tables otherwise; never a per-bit loop. `icrc`
// reads a packet in place, applying the masks of its variant fields in registers; without
// PCLMULQDQ it masks a copy of the headers. From 64 bytes on, the bytes behind the masked
// headers go to ISA-L's crc32_gzip_refl (VPCLMULQDQ, 256 bytes a step, where the CPU has it).
#pragma once

#include <cstdint>
#include <span>

namespace mr::wire {

class IcrcCalculator {
 public:
  // `ip_to_icrc`: from the first byte of the IP header up to (excluding) the ICRC.
  // The IP version is read from the first nibble; the bytes must hold at least the IP
  // header, UDP header and BTH (a parsed packet always does).
  static uint32_t icrc(std::span<const uint8_t> ip_to_icrc);

  // Plain CRC-32 register update (no pre/post inversion), exposed for tests and benchmarks:
  // `update` picks the fastest implementation the CPU has, `update_tables` is slice-by-8.
  static uint32_t update(uint32_t state, std::span<const uint8_t> bytes);
  static uint32_t update_tables(uint32_t state, std::span<const uint8_t> bytes);
};

}  // namespace mr::wire
