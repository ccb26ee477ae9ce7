#include "reference/transport/packet_factory.h"

#include <array>

#include "reference/transport/ext/secure_frame.h"
#include "reference/wire/frame_builder.h"
#include "reference/wire/header_sizes.h"
#include "reference/wire/icrc.h"
#include "reference/wire/opcode.h"

namespace mr::transport {

wire::RocePacket PacketFactory::start(const QueuePair& qp, uint8_t opcode, uint32_t psn) const {
  return start(qp.attr.av, qp.attr.pkey, qp.attr.dest_qpn, opcode, psn);
}

wire::RocePacket PacketFactory::start(const AddressVector& av, uint16_t pkey, uint32_t dest_qpn,
                                      uint8_t opcode, uint32_t psn) const {
  wire::RocePacket p;
  p.eth.src = av.smac;
  p.eth.dst = av.dmac;
  const bool v6 = std::holds_alternative<wire::Ipv6Address>(av.sip);
  const uint16_t l3_type = v6 ? wire::kEtherTypeIpv6 : wire::kEtherTypeIpv4;
  if (av.vlan_id && decide_.sends_vlan_tag) {
    p.eth.type = wire::kEtherTypeDot1Q;
    wire::Dot1Q tag;
    tag.prio = decide_.vlan_pcp_from_address_vector ? av.vlan_prio : 0;
    tag.vlan = *av.vlan_id;
    tag.type = l3_type;
    p.vlan = tag;
  } else {
    p.eth.type = l3_type;
  }
  if (v6) {
    wire::Ipv6 ip;
    ip.src = std::get<wire::Ipv6Address>(av.sip);
    ip.dst = std::get<wire::Ipv6Address>(av.dip);
    ip.tc = decide_.ipv6_traffic_class_from_av ? av.traffic_class : 0;
    ip.fl = av.flow_label;
    ip.hlim = decide_.ipv6_hop_limit_from_av ? av.hop_limit : 64;
    p.ip = ip;
  } else {
    wire::Ipv4 ip;
    ip.src = std::get<wire::Ipv4Address>(av.sip);
    ip.dst = std::get<wire::Ipv4Address>(av.dip);
    ip.tos = av.traffic_class;
    ip.ttl = av.hop_limit;
    ip.flags = 2;  // DF: RoCEv2 packets are never fragmented
    p.ip = ip;
  }
  p.udp.sport = av.udp_sport;
  p.bth.opcode = opcode;
  p.bth.pkey = pkey;
  p.bth.dqpn = dest_qpn;
  p.bth.psn = psn;
  if (!decide_.bth_version_zero) p.bth.version = 1;
  return p;
}

std::vector<uint8_t> PacketFactory::finish(const wire::RocePacket& p) {
  std::vector<uint8_t> frame;
  finish_into(p, frame);
  return frame;
}

namespace {

// The broken ICRC of the ext-icrc-skips-ext-headers mutant: computed with every header
// between the BTH and the payload zeroed.
void icrc_without_ext_headers(const wire::RocePacket& p, std::vector<uint8_t>& frame) {
  const auto* info = wire::opcode_info(p.bth.opcode.value(), p.bth.header_set());
  if (info == nullptr || frame.size() < wire::kIcrcSize) return;
  const size_t l3 = wire::Ether::kSize + (p.vlan ? wire::Dot1Q::kSize : 0);
  const size_t ip_header =
      std::holds_alternative<wire::Ipv4>(p.ip) ? (frame[l3] & 0x0fU) * 4U : wire::Ipv6::kSize;
  const size_t bth_end = l3 + ip_header + wire::Udp::kSize + wire::kBthSize;
  const size_t icrc_at = frame.size() - wire::kIcrcSize;
  if (bth_end + info->header_bytes() > icrc_at) return;
  std::vector<uint8_t> covered(frame.begin() + static_cast<std::ptrdiff_t>(l3),
                               frame.begin() + static_cast<std::ptrdiff_t>(icrc_at));
  std::fill_n(covered.begin() + static_cast<std::ptrdiff_t>(bth_end - l3), info->header_bytes(),
              uint8_t{0});
  const uint32_t icrc = wire::IcrcCalculator::icrc(covered);
  for (size_t i = 0; i < wire::kIcrcSize; ++i)
    frame[icrc_at + i] = static_cast<uint8_t>(icrc >> (24 - 8 * i));
}

}  // namespace

bool PacketFactory::finish_into(const wire::RocePacket& in, std::vector<uint8_t>& frame,
                                wire::PayloadPieces pieces, ext::SecureTransmitter* secure) {
  wire::RocePacket p = in;
  std::optional<ext::SecureTransmitter::Key> key;
  if (secure != nullptr) {
    key = secure->next();
    if (!key) return false;
    if (secure_sets_sx_) p.bth.resv7 = p.bth.resv7.value() | wire::Bth::kResv7Sx;
    p.sech = key->sech;
    p.sec_tag.emplace();
  }
  if (auto* v4 = std::get_if<wire::Ipv4>(&p.ip)) v4->id = ip_id_++;
  if (!decide_.udp_source_port_stable) p.udp.sport = p.udp.sport ^ ++sport_jitter_;
  if (!decide_.becn_only_on_cnp && p.bth.opcode != wire::kOpCnp) p.bth.becn = 1;
  wire::BuildOptions options;
  options.fill_padding = true;
  static constexpr std::array<uint8_t, 3> kOnes{0xff, 0xff, 0xff};
  const size_t payload = wire::payload_size(p, pieces);
  if (!decide_.pad_bytes_zero && payload % 4 != 0) {
    p.bth.padcount = (4 - payload % 4) % 4;
    p.pad = std::span(kOnes).first(p.bth.padcount);
    options.fill_padding = false;
  }
  wire::build_frame_into(p, options, frame, pieces);
  if (key) {
    // Laid out by the codec from the packet itself; were it not, nothing leaves in clear.
    const auto at = ext::secure_layout(frame, p);
    if (!at) return false;
    ext::seal_frame(frame, *at, *key->gcm, key->salt, key->sech.pn.value());
  }
  // The ext-icrc-skips-ext-headers mutant (MR-EX-08); read for Ext packets only, so that
  // base tests do not reach it.
  if (p.bth.is_ext() && !decide_.icrc_covers_ext_headers) icrc_without_ext_headers(p, frame);
  if (!decide_.icrc_little_endian_on_wire) {
    std::swap(frame[frame.size() - 4], frame[frame.size() - 1]);
    std::swap(frame[frame.size() - 3], frame[frame.size() - 2]);
  }
  return true;
}

}  // namespace mr::transport
