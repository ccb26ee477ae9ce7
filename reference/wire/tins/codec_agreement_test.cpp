// The libtins PDUs agree with the codec on Ext frames (issue #21). A seeded random corpus:
// every opcode of table 19.1, plain and secure (SX), over IPv4 and IPv6, with and without
// an 802.1Q tag, every field random. Each frame is built once with libtins (EthernetII /
// [Dot1Q] / IP or IPv6 / UDP / BthPdu / ...) and once with build_frame from the same
// values, and the bytes must be equal; then libtins parses the codec's bytes and its layers
// must hold the codec's fields, and serialize back to the same bytes.
//
// The seed is printed and recorded as the test's "seed" property; rerun one with
//   bazel test //reference/wire/tins:codec_agreement_test --test_env=METAROCE_TINS_SEED=N
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "reference/wire/frame_builder.h"
#include "reference/wire/frame_decoder.h"
#include "reference/wire/opcode.h"
#include "reference/wire/tins/roce_pdus.h"

namespace mr::wire::tins {
namespace {

constexpr uint64_t kDefaultSeed = 20260421;
constexpr int kFramesPerCase = 10;

uint64_t corpus_seed() {
  const char* s = std::getenv("METAROCE_TINS_SEED");
  return s != nullptr ? std::strtoull(s, nullptr, 0) : kDefaultSeed;
}

// Every field random: UInt<N> keeps the low N bits, byte arrays get random bytes.
template <class H>
void randomize(H& h, std::mt19937_64& rng) {
  H::fields(h, [&rng](std::string_view, auto& field) {
    using F = std::remove_cvref_t<decltype(field)>;
    if constexpr (kIsByteArray<F>) {
      for (auto& b : field.bytes) b = static_cast<uint8_t>(rng());
    } else {
      field = rng();
    }
  });
}

template <class T>
T random_bytes(std::mt19937_64& rng) {
  T a;
  for (auto& b : a.bytes) b = static_cast<uint8_t>(rng());
  return a;
}

struct Case {
  uint8_t opcode;
  HeaderSet set;
  bool ipv6;
  bool vlan;
};

// One frame's values; payload and pad are owned here, the packet's spans point at them.
struct Sample {
  RocePacket packet;
  std::vector<uint8_t> payload;
  std::vector<uint8_t> pad;
};

void make_sample(const Case& c, std::mt19937_64& rng, Sample& s) {
  RocePacket& p = s.packet;
  p.eth.dst = random_bytes<MacAddress>(rng);
  p.eth.src = random_bytes<MacAddress>(rng);
  const uint16_t ip_type = c.ipv6 ? kEtherTypeIpv6 : kEtherTypeIpv4;
  p.eth.type = c.vlan ? kEtherTypeDot1Q : ip_type;
  if (c.vlan) {
    randomize(p.vlan.emplace(), rng);
    p.vlan->type = ip_type;
  }
  if (c.ipv6) {
    Ipv6 ip;
    ip.tc = rng();
    ip.fl = rng();
    ip.hlim = rng();
    ip.src = random_bytes<Ipv6Address>(rng);
    ip.dst = random_bytes<Ipv6Address>(rng);
    p.ip = ip;
  } else {
    Ipv4 ip;
    ip.tos = rng();
    ip.id = rng();
    ip.flags = rng() & 0b110;  // reserved and DF; MF would make it a fragment, not RoCE
    ip.ttl = rng();
    ip.src = random_bytes<Ipv4Address>(rng);
    ip.dst = random_bytes<Ipv4Address>(rng);
    p.ip = ip;
  }
  p.udp.sport = rng();

  randomize(p.bth, rng);
  p.bth.opcode = c.opcode;
  p.bth.version = kExtVersion;
  const bool secure = c.set == HeaderSet::kExtSecure;
  p.bth.resv7 = (p.bth.resv7 & ~Bth::kResv7Sx) | (secure ? Bth::kResv7Sx : 0);
  const OpcodeInfo& info = *opcode_info(c.opcode, c.set);
  if (info.has(kSech)) randomize(p.sech.emplace(), rng);
  if (info.has(kMxh)) randomize(p.mxh.emplace(), rng);
  if (info.has(kReth)) randomize(p.reth.emplace(), rng);
  if (info.has(kAtomicEth)) randomize(p.atomic_eth.emplace(), rng);
  if (info.has(kImmDt)) randomize(p.imm_dt.emplace(), rng);
  if (info.has(kIeth)) randomize(p.ieth.emplace(), rng);
  if (info.has(kAeth)) randomize(p.aeth.emplace(), rng);
  if (info.has(kAtomicAckEth)) randomize(p.atomic_ack_eth.emplace(), rng);
  if (info.has(kSacketh)) randomize(p.sacketh.emplace(), rng);
  if (info.has(kCreth)) randomize(p.creth.emplace(), rng);
  if (info.has(kRsyneth)) randomize(p.rsyneth.emplace(), rng);
  if (secure) randomize(p.sec_tag.emplace(), rng);
  s.payload.clear();
  s.pad.clear();
  if (info.is(kPayload)) {
    s.payload.resize(rng() % 65);
    for (auto& b : s.payload) b = static_cast<uint8_t>(rng());
    s.pad.resize(rng() % 4);  // any pad count, any pad bytes: the codec writes them as given
    for (auto& b : s.pad) b = static_cast<uint8_t>(rng());
  }
  p.bth.padcount = s.pad.size();
  p.payload = s.payload;
  p.pad = s.pad;
}

// The same frame stacked with libtins: its own layers for L2 to UDP, ours under them.
Expected<std::vector<uint8_t>, std::string> build_with_libtins(const RocePacket& p,
                                                               std::span<const uint8_t> data) {
  Tins::EthernetII eth(Tins::HWAddress<6>(p.eth.dst.bytes.data()),
                       Tins::HWAddress<6>(p.eth.src.bytes.data()));
  if (p.vlan) {
    Tins::Dot1Q tag(p.vlan->vlan.value());
    tag.priority(p.vlan->prio.value());
    tag.cfi(p.vlan->id.value());
    eth /= tag;
  }
  if (const auto* v4 = std::get_if<Ipv4>(&p.ip)) {
    Tins::IP ip(v4->dst.to_string(), v4->src.to_string());
    ip.tos(v4->tos);
    ip.id(v4->id);
    ip.flags(static_cast<Tins::IP::Flags>(v4->flags.value()));
    ip.ttl(v4->ttl);
    eth /= ip;
  } else {
    const auto& v6 = std::get<Ipv6>(p.ip);
    Tins::IPv6 ip(Tins::IPv6Address(v6.dst.bytes.data()), Tins::IPv6Address(v6.src.bytes.data()));
    ip.traffic_class(v6.tc);
    ip.flow_label(v6.fl.value());
    ip.hop_limit(v6.hlim);
    eth /= ip;
  }
  eth /= Tins::UDP(p.udp.dport, p.udp.sport);
  eth /= BthPdu(p.bth);
  if (p.sech) eth /= SechPdu(*p.sech, *p.sec_tag);  // the tag is the SECH's trailer
  if (p.mxh) eth /= MxhPdu(*p.mxh);
  if (p.reth) eth /= RethPdu(*p.reth);
  if (p.atomic_eth) eth /= AtomicEthPdu(*p.atomic_eth);
  if (p.imm_dt) eth /= ImmDtPdu(*p.imm_dt);
  if (p.ieth) eth /= IethPdu(*p.ieth);
  if (p.aeth) eth /= AethPdu(*p.aeth);
  if (p.atomic_ack_eth) eth /= AtomicAckEthPdu(*p.atomic_ack_eth);
  if (p.sacketh) eth /= SackethPdu(*p.sacketh);
  if (p.creth) eth /= CrethPdu(*p.creth);
  if (p.rsyneth) eth /= RsynethPdu(*p.rsyneth);
  if (!data.empty()) eth /= Tins::RawPDU(data.data(), static_cast<uint32_t>(data.size()));
  return serialize_roce(eth);
}

std::string_view pdu_name(const Tins::PDU& pdu) {
  const std::pair<Tins::PDU::PDUType, std::string_view> kNames[] = {
      {BthPdu::pdu_flag, BthPdu::name()},
      {SechPdu::pdu_flag, SechPdu::name()},
      {MxhPdu::pdu_flag, MxhPdu::name()},
      {RethPdu::pdu_flag, RethPdu::name()},
      {AtomicEthPdu::pdu_flag, AtomicEthPdu::name()},
      {ImmDtPdu::pdu_flag, ImmDtPdu::name()},
      {IethPdu::pdu_flag, IethPdu::name()},
      {AethPdu::pdu_flag, AethPdu::name()},
      {AtomicAckEthPdu::pdu_flag, AtomicAckEthPdu::name()},
      {SackethPdu::pdu_flag, SackethPdu::name()},
      {CrethPdu::pdu_flag, CrethPdu::name()},
      {RsynethPdu::pdu_flag, RsynethPdu::name()},
      {Tins::PDU::RAW, "Raw"},
  };
  for (const auto& [flag, name] : kNames)
    if (pdu.pdu_type() == flag) return name;
  return "?";
}

// Layer names from the BTH down, as libtins holds them and as the codec decoded them.
std::string tins_chain(const Tins::PDU& top) {
  std::string names;
  for (const Tins::PDU* p = top.find_pdu<BthPdu>(); p != nullptr; p = p->inner_pdu())
    names += std::string(pdu_name(*p)) + " ";
  return names;
}
std::string codec_chain(const RocePacket& p) {
  std::string names = "BTH ";
  p.for_each_extension([&names](const auto& h) { names += std::string(h.kName) + " "; });
  if (!p.payload.empty() || !p.pad.empty()) names += "Raw ";
  return names;
}

// The transport header of type H under `top` equals the codec's, or both are absent.
template <class Pdu, class H>
void expect_header(const Tins::PDU& top, const std::optional<H>& codec) {
  const auto* pdu = top.find_pdu<Pdu>();
  ASSERT_EQ(pdu != nullptr, codec.has_value()) << Pdu::name();
  if (pdu != nullptr) {
    EXPECT_TRUE(pdu->header() == *codec) << Pdu::name();
  }
}

// libtins' own layers, read from the codec's bytes, hold the codec's values.
void expect_libtins_layers(const Tins::EthernetII& eth, const RocePacket& p) {
  EXPECT_EQ(eth.dst_addr(), Tins::HWAddress<6>(p.eth.dst.bytes.data()));
  EXPECT_EQ(eth.src_addr(), Tins::HWAddress<6>(p.eth.src.bytes.data()));
  EXPECT_EQ(eth.payload_type(), p.eth.type);
  if (p.vlan) {
    const auto* tag = eth.find_pdu<Tins::Dot1Q>();
    ASSERT_NE(tag, nullptr);
    EXPECT_EQ(tag->priority(), p.vlan->prio);
    EXPECT_EQ(tag->cfi(), p.vlan->id);
    EXPECT_EQ(tag->id(), p.vlan->vlan);
    EXPECT_EQ(tag->payload_type(), p.vlan->type);
  } else {
    EXPECT_EQ(eth.find_pdu<Tins::Dot1Q>(), nullptr);
  }
  if (const auto* v4 = std::get_if<Ipv4>(&p.ip)) {
    const auto* ip = eth.find_pdu<Tins::IP>();
    ASSERT_NE(ip, nullptr);
    EXPECT_EQ(ip->tos(), v4->tos);
    EXPECT_EQ(ip->tot_len(), v4->len);
    EXPECT_EQ(ip->id(), v4->id);
    EXPECT_EQ(ip->flags(), v4->flags);
    EXPECT_EQ(ip->fragment_offset(), v4->frag);
    EXPECT_EQ(ip->ttl(), v4->ttl);
    EXPECT_EQ(ip->protocol(), v4->proto);
    EXPECT_EQ(ip->checksum(), v4->chksum);
    EXPECT_EQ(ip->src_addr().to_string(), v4->src.to_string());
    EXPECT_EQ(ip->dst_addr().to_string(), v4->dst.to_string());
  } else {
    const auto& v6 = std::get<Ipv6>(p.ip);
    const auto* ip = eth.find_pdu<Tins::IPv6>();
    ASSERT_NE(ip, nullptr);
    EXPECT_EQ(ip->traffic_class(), v6.tc);
    EXPECT_EQ(ip->flow_label(), v6.fl);
    EXPECT_EQ(ip->payload_length(), v6.plen);
    EXPECT_EQ(ip->next_header(), v6.nh);
    EXPECT_EQ(ip->hop_limit(), v6.hlim);
    EXPECT_EQ(ip->src_addr(), Tins::IPv6Address(v6.src.bytes.data()));
    EXPECT_EQ(ip->dst_addr(), Tins::IPv6Address(v6.dst.bytes.data()));
  }
  const auto* udp = eth.find_pdu<Tins::UDP>();
  ASSERT_NE(udp, nullptr);
  EXPECT_EQ(udp->sport(), p.udp.sport);
  EXPECT_EQ(udp->dport(), p.udp.dport);
  EXPECT_EQ(udp->length(), p.udp.len);
  EXPECT_EQ(udp->checksum(), p.udp.chksum);
}

// The chain attach_roce hangs under UDP holds the codec's headers, payload and pad.
void expect_roce_chain(const Tins::EthernetII& eth, const RocePacket& p) {
  EXPECT_EQ(tins_chain(eth), codec_chain(p));
  expect_header<BthPdu>(eth, std::optional(p.bth));
  expect_header<SechPdu>(eth, p.sech);
  expect_header<MxhPdu>(eth, p.mxh);
  expect_header<RethPdu>(eth, p.reth);
  expect_header<AtomicEthPdu>(eth, p.atomic_eth);
  expect_header<ImmDtPdu>(eth, p.imm_dt);
  expect_header<IethPdu>(eth, p.ieth);
  expect_header<AethPdu>(eth, p.aeth);
  expect_header<AtomicAckEthPdu>(eth, p.atomic_ack_eth);
  expect_header<SackethPdu>(eth, p.sacketh);
  expect_header<CrethPdu>(eth, p.creth);
  expect_header<RsynethPdu>(eth, p.rsyneth);
  if (const auto* sech = eth.find_pdu<SechPdu>()) {
    ASSERT_TRUE(p.sec_tag);
    EXPECT_TRUE(sech->tag() == *p.sec_tag);
  }
  std::vector<uint8_t> data(p.payload.begin(), p.payload.end());
  data.insert(data.end(), p.pad.begin(), p.pad.end());
  const auto* raw = eth.find_pdu<Tins::RawPDU>();
  EXPECT_EQ(raw != nullptr ? raw->payload() : std::vector<uint8_t>{}, data);
}

std::string hex(std::span<const uint8_t> bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s;
  for (uint8_t b : bytes) s += {kDigits[b >> 4], kDigits[b & 0xf]};
  return s;
}

std::vector<Case> table_19_1_cases() {
  std::vector<Case> cases;
  for (HeaderSet set : {HeaderSet::kExt, HeaderSet::kExtSecure}) {
    for (int op = 0; op < 256; ++op) {
      if (opcode_info(static_cast<uint8_t>(op), set) == nullptr) continue;
      for (bool ipv6 : {false, true})
        for (bool vlan : {false, true})
          cases.push_back({static_cast<uint8_t>(op), set, ipv6, vlan});
    }
  }
  return cases;
}

TEST(CodecAgreement, LibtinsBuildsTheCodecsBytesAndParsesItsFieldsOnEveryExtOpcode) {
  const uint64_t seed = corpus_seed();
  std::cout << "codec_agreement corpus seed " << seed << "\n";
  RecordProperty("seed", std::to_string(seed));
  std::mt19937_64 rng(seed);
  const std::vector<Case> cases = table_19_1_cases();
  ASSERT_EQ(cases.size(), 2U * 26U * 2U * 2U);  // 26 opcodes in table 19.1, plain and secure

  int frames = 0;
  Sample s;
  for (int round = 0; round < kFramesPerCase; ++round) {
    for (const Case& c : cases) {
      s = Sample{};
      make_sample(c, rng, s);
      const std::string what = "seed " + std::to_string(seed) + " frame " + std::to_string(frames) +
                               " " + opcode_name(c.opcode, c.set) +
                               (c.set == HeaderSet::kExtSecure ? " secure" : "") +
                               (c.ipv6 ? " IPv6" : " IPv4") + (c.vlan ? " Dot1Q" : "");
      SCOPED_TRACE(what);
      ++frames;
      const std::vector<uint8_t> codec = build_frame(s.packet);
      std::vector<uint8_t> data = s.payload;
      data.insert(data.end(), s.pad.begin(), s.pad.end());
      const auto libtins = build_with_libtins(s.packet, data);
      ASSERT_TRUE(libtins) << libtins.error();
      if (*libtins != codec) {
        ADD_FAILURE() << "libtins " << hex(*libtins) << "\ncodec   " << hex(codec);
        return;  // the first frame that disagrees says it all
      }

      auto decoded = decode_frame(codec);
      ASSERT_TRUE(decoded) << decoded.error().to_string();
      const RocePacket& p = std::get<DecodedRoce>(*decoded).packet;
      Tins::EthernetII eth(codec.data(), static_cast<uint32_t>(codec.size()));
      // Before attach_roce, which serializes the stack (libtins then recomputes the UDP
      // checksum into its UDP layer).
      expect_libtins_layers(eth, p);
      auto attached = attach_roce(eth);
      ASSERT_TRUE(attached) << attached.error();
      expect_roce_chain(eth, p);
      const auto again = serialize_roce(eth);
      ASSERT_TRUE(again) << again.error();
      EXPECT_EQ(*again, codec);
      if (HasFailure()) return;
    }
  }
  EXPECT_GE(frames, 2000);
  std::cout << "codec_agreement " << frames << " frames, " << cases.size() << " cases\n";
}

}  // namespace
}  // namespace mr::wire::tins
