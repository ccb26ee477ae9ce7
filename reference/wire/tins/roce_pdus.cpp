#include "reference/wire/tins/roce_pdus.h"

#include <cstring>
#include <memory>

#include "reference/wire/byte_writer.h"
#include "reference/wire/frame_decoder.h"
#include "reference/wire/icrc.h"
#include "reference/wire/opcode.h"

namespace mr::wire::tins {

namespace {

// Writes h's bytes at `at`, at most `room` of them.
template <class H>
void write_header(const H& h, uint8_t* at, size_t room) {
  std::vector<uint8_t> bytes;
  ByteWriter w(bytes);
  h.write(w);
  std::memcpy(at, bytes.data(), std::min(bytes.size(), room));
}

bool is_ext_header(const Tins::PDU& pdu) {
  const Tins::PDU::PDUType t = pdu.pdu_type();
  return t == MxhPdu::pdu_flag || t == SackethPdu::pdu_flag || t == CrethPdu::pdu_flag ||
         t == RsynethPdu::pdu_flag || t == SechPdu::pdu_flag;
}

}  // namespace

template <class H, int kTypeOffset, unsigned kTrailer>
void HeaderPdu<H, kTypeOffset, kTrailer>::write_serialization(uint8_t* buffer, uint32_t total_sz) {
  write_header(header_, buffer, total_sz);
  // The ICRC trailer is written as zeros here and filled in by serialize_roce().
  if (kTrailer > 0 && total_sz >= kTrailer) std::memset(buffer + total_sz - kTrailer, 0, kTrailer);
}

template <>
void HeaderPdu<Bth, 1, 4>::prepare_for_serialize() {
  bool ext = false;
  for (const Tins::PDU* p = inner_pdu(); p != nullptr && !ext; p = p->inner_pdu())
    ext = is_ext_header(*p);
  if (!ext) return;
  if (header_.version == 0) header_.version = kExtVersion;
  if (inner_pdu()->pdu_type() == SechPdu::pdu_flag)
    header_.resv7 = header_.resv7.value() | Bth::kResv7Sx;
}

void SechPdu::write_serialization(uint8_t* buffer, uint32_t total_sz) {
  write_header(header_, buffer, total_sz);
  if (total_sz >= Sech::kSize + SecTag::kSize)
    write_header(tag_, buffer + total_sz - SecTag::kSize, SecTag::kSize);
}

template class HeaderPdu<Bth, 1, 4>;
template class HeaderPdu<Rdeth, 2>;
template class HeaderPdu<Deth, 3>;
template class HeaderPdu<Feth, 4>;
template class HeaderPdu<Reth, 5>;
template class HeaderPdu<AtomicEth, 6>;
template class HeaderPdu<ImmDt, 7>;
template class HeaderPdu<Ieth, 8>;
template class HeaderPdu<Aeth, 9>;
template class HeaderPdu<AtomicAckEth, 10>;
template class HeaderPdu<CnpPadding, 11>;
template class HeaderPdu<Mxh, 12>;
template class HeaderPdu<Sacketh, 13>;
template class HeaderPdu<Creth, 14>;
template class HeaderPdu<Rsyneth, 15>;

Expected<std::vector<uint8_t>, std::string> serialize_roce(Tins::PDU& top) {
  std::vector<uint8_t> frame = top.serialize();
  auto d = decode_frame(frame);
  if (!d) return Unexpected("serialize_roce: the stack does not decode: " + d.error().to_string());
  const auto* roce = std::get_if<DecodedRoce>(&*d);
  if (roce == nullptr)
    return Unexpected(std::string("serialize_roce: not a RoCEv2 frame (UDP port 4791)"));
  // The BTH trailer sits right after the transport payload, which libtins ends where the
  // IP length says; the ICRC is the last 4 bytes of the UDP datagram.
  const size_t end = roce->transport_offset + roce->packet.udp.len - 8;
  const uint32_t icrc = roce->icrc_computed;
  for (int i = 0; i < 4; ++i)
    frame[end - 4 + static_cast<size_t>(i)] = static_cast<uint8_t>(icrc >> (24 - 8 * i));
  // libtins summed the UDP checksum over the ICRC's placeholder zeros, so it is wrong now:
  // write 0, as RoCEv2 senders do and build_frame does by default (the ICRC masks it).
  const size_t udp_checksum = roce->transport_offset - Udp::kSize + 6;
  frame[udp_checksum] = frame[udp_checksum + 1] = 0;
  return frame;
}

Expected<void, std::string> attach_roce(Tins::PDU& top) {
  auto* udp = top.find_pdu<Tins::UDP>();
  if (udp == nullptr || udp->dport() != kRoceV2Port)
    return Unexpected(std::string("attach_roce: no UDP 4791 layer"));
  const std::vector<uint8_t> frame = top.serialize();
  auto d = decode_frame(frame);
  if (!d) return Unexpected("attach_roce: " + d.error().to_string());
  const auto* roce = std::get_if<DecodedRoce>(&*d);
  if (roce == nullptr) return Unexpected(std::string("attach_roce: not RoCEv2"));
  const RocePacket& p = roce->packet;
  // Build the chain innermost first, then hang it under the UDP layer.
  std::unique_ptr<Tins::PDU> chain;
  auto push = [&chain](std::unique_ptr<Tins::PDU> outer) {
    if (chain) outer->inner_pdu(chain.release());
    chain = std::move(outer);
  };
  // Payload and pad in one RawPDU, as Scapy's Raw holds them: the frame rebuilds as it was.
  std::vector<uint8_t> data(p.payload.begin(), p.payload.end());
  data.insert(data.end(), p.pad.begin(), p.pad.end());
  if (!data.empty()) push(std::make_unique<Tins::RawPDU>(std::move(data)));
  if (p.cnp_padding) push(std::make_unique<CnpPaddingPdu>(*p.cnp_padding));
  if (p.rsyneth) push(std::make_unique<RsynethPdu>(*p.rsyneth));
  if (p.creth) push(std::make_unique<CrethPdu>(*p.creth));
  if (p.sacketh) push(std::make_unique<SackethPdu>(*p.sacketh));
  if (p.atomic_ack_eth) push(std::make_unique<AtomicAckEthPdu>(*p.atomic_ack_eth));
  if (p.aeth) push(std::make_unique<AethPdu>(*p.aeth));
  if (p.ieth) push(std::make_unique<IethPdu>(*p.ieth));
  if (p.imm_dt) push(std::make_unique<ImmDtPdu>(*p.imm_dt));
  if (p.atomic_eth) push(std::make_unique<AtomicEthPdu>(*p.atomic_eth));
  if (p.reth) push(std::make_unique<RethPdu>(*p.reth));
  if (p.mxh) push(std::make_unique<MxhPdu>(*p.mxh));
  if (p.feth) push(std::make_unique<FethPdu>(*p.feth));
  if (p.deth) push(std::make_unique<DethPdu>(*p.deth));
  if (p.rdeth) push(std::make_unique<RdethPdu>(*p.rdeth));
  // The SECH wraps everything up to its tag, so it is pushed last of the extensions.
  if (p.sech) push(std::make_unique<SechPdu>(*p.sech, p.sec_tag.value_or(SecTag{})));
  push(std::make_unique<BthPdu>(p.bth));
  udp->inner_pdu(chain.release());  // libtins takes ownership
  return {};
}

}  // namespace mr::wire::tins
