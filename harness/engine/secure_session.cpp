#include "harness/engine/secure_session.h"

#include <algorithm>

#include "harness/engine/packet_synthesis.h"
#include "harness/protocol/dut_client.h"
#include "reference/transport/ext/secure_frame.h"
#include "reference/wire/opcode.h"

namespace mr::engine {

namespace {

using transport::ext::SecurityAssociation;

// Section 27's example SA: requester (tester) to responder (DUT) and back.
SecurityAssociation example(bool to_dut, uint16_t epoch) {
  SecurityAssociation sa;
  sa.epoch = epoch;
  for (size_t i = 0; i < sa.key.size(); ++i)
    sa.key[i] = static_cast<uint8_t>(i + (to_dut ? 0x00 : 0x20));
  // One key per epoch (e -> its two bytes, the low one XOR 1), epoch 1 the example itself.
  sa.key[0] ^= static_cast<uint8_t>(epoch >> 8);
  sa.key[1] ^= static_cast<uint8_t>((epoch & 0xff) ^ 1);
  sa.salt = to_dut ? std::array<uint8_t, 4>{0xa0, 0xa1, 0xa2, 0xa3}
                   : std::array<uint8_t, 4>{0xb0, 0xb1, 0xb2, 0xb3};
  sa.spi = (to_dut ? 0x101U : 0x202U) + 0x10000U * static_cast<uint32_t>(epoch - 1U);
  return sa;
}

bool gives(const script::PacketExpr& packet, std::string_view layer, std::string_view field) {
  for (const script::Layer& l : packet.layers) {
    if (l.name != layer) continue;
    for (const script::FieldArg& a : l.args)
      if (a.name == field) return true;
  }
  return false;
}

void write_pn(std::vector<uint8_t>& frame, size_t sech, uint64_t pn) {
  for (size_t i = 0; i < 8; ++i) frame[sech + 8 + i] = static_cast<uint8_t>(pn >> (56 - 8 * i));
}

}  // namespace

SecurityAssociation SecureSession::tester_to_dut(uint16_t epoch) { return example(true, epoch); }
SecurityAssociation SecureSession::dut_to_tester(uint16_t epoch) { return example(false, epoch); }

protocol::SecureSa SecureSession::dut_keys(uint16_t epoch) {
  const auto on_wire = [](const SecurityAssociation& s) {
    return protocol::SecurityAssociation{.epoch = s.epoch,
                                         .key = protocol::to_hex(s.key),
                                         .salt = protocol::to_hex(s.salt),
                                         .spi = s.spi};
  };
  return {.tx = {on_wire(dut_to_tester(epoch))}, .rx = {on_wire(tester_to_dut(epoch))}};
}

SecureSession::SecureSession() { install(1); }

void SecureSession::install(uint16_t epoch) {
  if (keys_.contains(epoch)) return;
  const SecurityAssociation to_dut = tester_to_dut(epoch);
  const SecurityAssociation to_tester = dut_to_tester(epoch);
  keys_.emplace(epoch, Keys{to_dut, to_tester, crypto::Aes256Gcm(to_dut.key),
                            crypto::Aes256Gcm(to_tester.key)});
}

SecureSession::Keys* SecureSession::keys(uint16_t epoch) {
  auto it = keys_.find(epoch);
  return it == keys_.end() ? nullptr : &it->second;
}

uint64_t SecureSession::last_tester_pn(uint16_t epoch) const {
  auto it = keys_.find(epoch);
  return it == keys_.end() ? 0 : it->second.tester_pn;
}

Expected<void, std::string> SecureSession::seal(std::vector<uint8_t>& frame,
                                                const script::PacketExpr& packet) {
  auto d = wire::decode_frame(frame);
  const auto* roce = d ? std::get_if<wire::DecodedRoce>(&*d) : nullptr;
  if (roce == nullptr) {
    // A secure connection's packet the decoder cannot read would go out unsealed, and a
    // DUT's refusal of it would prove nothing.
    return Unexpected("the frame does not decode, so it cannot be sealed: " +
                      (d ? std::string("not RoCEv2") : d.error().to_string()));
  }
  if (!roce->packet.bth.sx() || !roce->packet.sech) return {};
  const wire::RocePacket& p = roce->packet;
  const auto at = transport::ext::secure_layout(frame, p);
  if (!at) {
    return Unexpected(std::string(
        "a secure packet needs its whole header block, a 16-byte tag and the ICRC; this frame "
        "is too short for them"));
  }
  // An epoch the harness never installed (a script testing MR-SE-05) is sealed under the
  // first one's key: the DUT must refuse it by its SECH alone.
  Keys* k = keys(p.sech->epoch.value());
  if (k == nullptr) k = &keys_.begin()->second;
  uint64_t pn = p.sech->pn.value();
  if (gives(packet, "SECH", "pn")) {
    k->tester_pn = std::max(k->tester_pn, pn);  // later packets stay fresh
  } else {
    pn = ++k->tester_pn;
    write_pn(frame, at->sech(), pn);
  }
  const auto& salt = k->to_dut.salt;
  if (!gives(packet, "SECH", "htag"))
    transport::ext::write_header_tag(frame, *at, k->seal, salt, pn);
  // A tag the script writes replaces the computed one; the payload is encrypted either way.
  std::vector<uint8_t> given_tag;
  if (gives(packet, "SecTag", "tag"))
    given_tag.assign(frame.begin() + static_cast<std::ptrdiff_t>(at->tag),
                     frame.begin() + static_cast<std::ptrdiff_t>(at->icrc));
  transport::ext::seal_payload(frame, *at, k->seal, salt, pn);
  if (!given_tag.empty())
    std::copy(given_tag.begin(), given_tag.end(),
              frame.begin() + static_cast<std::ptrdiff_t>(at->tag));
  if (!gives(packet, "BTH", "icrc")) transport::ext::write_icrc(frame, *at);
  return {};
}

std::vector<SecureProblem> SecureSession::open(std::span<const uint8_t> frame,
                                               wire::DecodedRoce& roce) {
  wire::RocePacket& p = roce.packet;
  if (!p.bth.is_ext()) return {};  // a CNP, or a base packet the connection judges itself
  if (!p.bth.sx() || !p.sech) {
    return {{"BTH.sx", "1 (SECURE agreed: a SECH follows the BTH)", "0", "MR-SE-12"}};
  }
  const wire::Sech& s = *p.sech;
  std::vector<SecureProblem> out;
  if (s.ver != wire::kExtVersion || s.suite != wire::kSecureSuiteAes256Gcm) {
    out.push_back({"SECH.ver/suite", "1/1 (AES-256-GCM)",
                   std::to_string(s.ver.value()) + "/" + std::to_string(s.suite.value()),
                   "MR-SE-02"});
    return out;
  }
  const uint16_t epoch = s.epoch.value();
  Keys* k = keys(epoch);
  if (k == nullptr) {
    out.push_back(
        {"SECH.epoch", "an epoch the harness installed", format_value(epoch, 16), "MR-SE-02"});
    return out;
  }
  if (s.spi != k->to_tester.spi) {
    out.push_back({"SECH.spi", format_value(k->to_tester.spi, 32), format_value(s.spi.value(), 32),
                   "MR-SE-02"});
  }
  const uint64_t pn = s.pn.value();
  const auto at = transport::ext::secure_layout(frame, p);
  if (!at) {
    out.push_back(
        {"SecTag", "a 16-byte tag before the ICRC", "a frame too short for it", "MR-SE-02"});
    return out;
  }
  const auto& salt = k->to_tester.salt;
  if (!transport::ext::header_tag_verifies(frame, *at, k->open, salt, pn)) {
    out.push_back({"SECH.htag", "the header tag of the header block under the DUT's key",
                   s.htag.to_string(), "MR-SE-03"});
  }
  if (!transport::ext::open_payload(frame, *at, k->open, salt, pn, plaintext_)) {
    out.push_back({"SecTag.tag",
                   "a tag that verifies under the DUT's key of epoch " + std::to_string(epoch),
                   p.sec_tag ? p.sec_tag->tag.to_string() : "none", "MR-SE-03"});
    return out;
  }
  // MR-SE-04, judged once the tags show the PN is the DUT's, in arrival order (a DUT whose
  // planes reorder its packets would need their send order).
  if ((pn >> 63) != 0) {
    out.push_back({"SECH.pn", "1 to 2^63 - 1", format_value(pn, 64), "MR-SE-04"});
  } else if (k->dut_pn == 0 && pn != 1) {
    out.push_back({"SECH.pn",
                   "1 (the DUT's first packet under epoch " + std::to_string(epoch) + ")",
                   format_value(pn, 64), "MR-SE-04"});
  } else if (k->dut_pn != 0 && pn <= k->dut_pn) {
    out.push_back({"SECH.pn",
                   "above " + format_value(k->dut_pn, 64) + ", the DUT's highest under epoch " +
                       std::to_string(epoch),
                   format_value(pn, 64), "MR-SE-04"});
  }
  k->dut_pn = std::max(k->dut_pn, pn);
  const std::span<const uint8_t> plain(plaintext_);
  p.payload = plain.first(std::min(p.payload.size(), plain.size()));
  p.pad = plain.subspan(p.payload.size());
  return out;
}

}  // namespace mr::engine
