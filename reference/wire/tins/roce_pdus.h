// File: roce_pdus.h
//
// The RoCEv2 transport headers, and the MetaRoCE Part II headers, as libtins PDUs with
// Scapy's layer names, so that code using libtins can stack them like any other layer:
//
//   Tins::EthernetII eth = Tins::EthernetII(dst, src) / Tins::IP(dip, sip) /
//                          Tins::UDP(4791, 0xc000) / BthPdu(bth) / AethPdu(aeth);
//   std::vector<uint8_t> frame = serialize_roce(eth);   // ICRC computed
//
// and parse received frames back into them:
//
//   Tins::EthernetII eth(frame.data(), frame.size());
//   if (auto ok = attach_roce(eth); ok) eth.rfind_pdu<BthPdu>().header().psn ...
//
// An Ext packet (spec section 19) stacks the headers of table 19.1 under the BTH, in wire
// order: BthPdu() / MxhPdu(mxh) / RethPdu(reth) / payload, BthPdu() / AethPdu() /
// SackethPdu(sack). A BTH left at TVer 0 over an Ext header is written with TVer 1, as the
// Scapy layer's BTH()/MXH() is; a secure packet puts SechPdu directly under the BTH, which
// sets the BTH's SX bit, and carries the packet tag as the SECH's trailer (below).
//
// libtins cannot register a layer on a UDP port (UDP always wraps its payload in a RawPDU;
// notes/toolchain.md), so attach_roce() replaces that RawPDU with the decoded chain. The
// ICRC covers the IP header, which libtins writes after the inner layers, so it can only be
// computed on the finished frame: serialize_roce() does that. Each PDU holds the value
// type of reference/wire; the codec stays the one place that knows the layouts.
#pragma once

#include <tins/tins.h>

#include <cstdint>
#include <string>
#include <vector>

#include "reference/error/expected.h"
#include "reference/wire/aeth.h"
#include "reference/wire/atomic_ack_eth.h"
#include "reference/wire/atomic_eth.h"
#include "reference/wire/bth.h"
#include "reference/wire/cnp_padding.h"
#include "reference/wire/creth.h"
#include "reference/wire/deth.h"
#include "reference/wire/feth.h"
#include "reference/wire/ieth.h"
#include "reference/wire/imm_dt.h"
#include "reference/wire/mxh.h"
#include "reference/wire/rdeth.h"
#include "reference/wire/reth.h"
#include "reference/wire/rsyneth.h"
#include "reference/wire/sacketh.h"
#include "reference/wire/sech.h"

namespace mr::wire::tins {

// One transport header as a PDU. The BTH also carries the 4-byte ICRC as its trailer.
template <class H, int kTypeOffset, unsigned kTrailer = 0>
class HeaderPdu : public Tins::PDU {
 public:
  static const Tins::PDU::PDUType pdu_flag =
      static_cast<Tins::PDU::PDUType>(Tins::PDU::USER_DEFINED_PDU + kTypeOffset);

  HeaderPdu() = default;
  explicit HeaderPdu(const H& header) : header_(header) {}

  const H& header() const { return header_; }
  H& header() { return header_; }
  // Scapy's layer name: "BTH", "AETH", ...
  static constexpr std::string_view name() { return H::kName; }

  uint32_t header_size() const override { return H::kSize; }
  uint32_t trailer_size() const override { return kTrailer; }
  Tins::PDU::PDUType pdu_type() const override { return pdu_flag; }
  // libtins owns PDUs through raw pointers; clone() must return a new one (its API).
  HeaderPdu* clone() const override {
    return new HeaderPdu(*this);
  }  // NOLINT(cppcoreguidelines-owning-memory)

 private:
  // libtins calls this before it serializes the PDUs under this one; only the BTH uses it.
  void prepare_for_serialize() override {}
  void write_serialization(uint8_t* buffer, uint32_t total_sz) override;

  H header_;
};

// A BTH at TVer 0 with an Ext header (MXH, SACKETH, CRETH, RSYNETH, SECH) anywhere under it
// is written with TVer 1, and with SX set (Bth::kResv7Sx) when a SECH is directly under it.
// Another TVer is kept as given, so a test can still send TVer 2 over an MXH; a TVer 0 BTH
// followed by Ext bytes is built with those bytes in a RawPDU. The BTH PDU keeps what it
// wrote, as libtins' IP keeps the source address it fills in.
template <>
void HeaderPdu<Bth, 1, 4>::prepare_for_serialize();

using BthPdu = HeaderPdu<Bth, 1, 4>;
using RdethPdu = HeaderPdu<Rdeth, 2>;
using DethPdu = HeaderPdu<Deth, 3>;
using FethPdu = HeaderPdu<Feth, 4>;
using RethPdu = HeaderPdu<Reth, 5>;
using AtomicEthPdu = HeaderPdu<AtomicEth, 6>;
using ImmDtPdu = HeaderPdu<ImmDt, 7>;
using IethPdu = HeaderPdu<Ieth, 8>;
using AethPdu = HeaderPdu<Aeth, 9>;
using AtomicAckEthPdu = HeaderPdu<AtomicAckEth, 10>;
using CnpPaddingPdu = HeaderPdu<CnpPadding, 11>;
// Part II (spec section 19, table 19.1).
using MxhPdu = HeaderPdu<Mxh, 12>;
using SackethPdu = HeaderPdu<Sacketh, 13>;
using CrethPdu = HeaderPdu<Creth, 14>;
using RsynethPdu = HeaderPdu<Rsyneth, 15>;

// The SECH, with the packet tag (SecTag) as its trailer. libtins writes a PDU's trailer
// after everything the PDU wraps, and what a SECH wraps (the headers of table 19.1, the
// payload, the pad) ends exactly where the tag goes, before the BTH's own trailer, the
// ICRC. So the tag needs no PDU of its own.
class SechPdu : public Tins::PDU {
 public:
  static const Tins::PDU::PDUType pdu_flag =
      static_cast<Tins::PDU::PDUType>(Tins::PDU::USER_DEFINED_PDU + 16);

  SechPdu() = default;
  explicit SechPdu(const Sech& header, const SecTag& tag = {}) : header_(header), tag_(tag) {}

  const Sech& header() const { return header_; }
  Sech& header() { return header_; }
  const SecTag& tag() const { return tag_; }
  SecTag& tag() { return tag_; }
  static constexpr std::string_view name() { return Sech::kName; }

  uint32_t header_size() const override { return Sech::kSize; }
  uint32_t trailer_size() const override { return SecTag::kSize; }
  Tins::PDU::PDUType pdu_type() const override { return pdu_flag; }
  SechPdu* clone() const override {
    return new SechPdu(*this);
  }  // NOLINT(cppcoreguidelines-owning-memory)

 private:
  void write_serialization(uint8_t* buffer, uint32_t total_sz) override;

  Sech header_;
  SecTag tag_;
};

// Serializes a stack built with libtins and fills in the ICRC (the BTH's trailer). The UDP
// checksum is written as 0, as RoCEv2 senders write it (libtins computes one before the ICRC
// is known; the UDP PDU's checksum() keeps that stale value).
Expected<std::vector<uint8_t>, std::string> serialize_roce(Tins::PDU& top);

// Replaces the RawPDU under the UDP layer of a parsed frame (destination port 4791) with
// BTH / extended headers / RawPDU payload and pad, decoded by reference/wire; errors are
// the codec's, naming header, field and offset.
Expected<void, std::string> attach_roce(Tins::PDU& top);

}  // namespace mr::wire::tins
