#include "reference/transport/ext/secure_frame.h"

#include <algorithm>

#include "reference/wire/icrc.h"
#include "reference/wire/opcode.h"

namespace mr::transport::ext {

namespace {

constexpr size_t kHtagOffset = 16;  // within the SECH
constexpr size_t kHtagSize = 8;
constexpr size_t kBthByte4 = 4;  // FECN, BECN, Resv6a: switches rewrite it, so it is masked
// The largest header block of table 19.1 with a SECH (ATOMIC: BTH, SECH, MXH, AtomicETH)
// is 84 bytes; room for all of them, checked below.
constexpr size_t kMaxHeaderBlock = 128;

// The header block as the AEAD reads it: BTH byte 4 = 0xFF, and for the header tag the
// HTAG field zero.
struct MaskedBlock {
  std::array<uint8_t, kMaxHeaderBlock> bytes{};
  size_t size = 0;
  std::span<const uint8_t> span() const { return std::span(bytes).first(size); }
};

MaskedBlock masked_block(std::span<const uint8_t> frame, const SecureLayout& at, bool zero_htag) {
  MaskedBlock b;
  b.size = at.header_block_size();
  std::copy_n(frame.begin() + static_cast<std::ptrdiff_t>(at.bth), b.size, b.bytes.begin());
  b.bytes[kBthByte4] = 0xff;
  if (zero_htag) std::fill_n(b.bytes.begin() + wire::kBthSize + kHtagOffset, kHtagSize, uint8_t{0});
  return b;
}

crypto::Aes256Gcm::Tag header_tag(std::span<const uint8_t> frame, const SecureLayout& at,
                                  crypto::Aes256Gcm& gcm, const std::array<uint8_t, 4>& salt,
                                  uint64_t pn) {
  const MaskedBlock block = masked_block(frame, at, true);
  return gcm.seal(secure_nonce(salt, pn, true), block.span(), {});
}

}  // namespace

std::optional<SecureLayout> secure_layout(std::span<const uint8_t> frame, const wire::RocePacket& p,
                                          bool whole) {
  if (!p.sech) return std::nullopt;
  const auto* info = wire::opcode_info(p.bth.opcode.value(), wire::HeaderSet::kExtSecure);
  if (info == nullptr) return std::nullopt;
  SecureLayout at;
  at.l3 = wire::Ether::kSize + (p.vlan ? wire::Dot1Q::kSize : 0);
  // Lengths from the frame's own bytes: a packet about to be sealed has them only there.
  if (frame.size() < at.l3 + wire::Ipv6::kSize) return std::nullopt;
  const auto be16 = [&](size_t at_byte) {
    return static_cast<size_t>(frame[at_byte] << 8 | frame[at_byte + 1]);
  };
  size_t ip_end = 0;
  if (std::holds_alternative<wire::Ipv4>(p.ip)) {
    at.bth = at.l3 + (frame[at.l3] & 0x0fU) * 4U + wire::Udp::kSize;
    ip_end = at.l3 + be16(at.l3 + 2);
  } else {
    at.bth = at.l3 + wire::Ipv6::kSize + wire::Udp::kSize;
    ip_end = at.l3 + wire::Ipv6::kSize + be16(at.l3 + 4);
  }
  at.header_end = at.bth + wire::kBthSize + info->header_bytes();
  if (at.header_end > frame.size() || at.header_block_size() > kMaxHeaderBlock) return std::nullopt;
  if (!whole) return at;
  if (ip_end > frame.size() || ip_end < at.header_end + wire::kSecTagSize + wire::kIcrcSize)
    return std::nullopt;
  at.icrc = ip_end - wire::kIcrcSize;
  at.tag = at.icrc - wire::kSecTagSize;
  return at;
}

crypto::Aes256Gcm::Nonce secure_nonce(const std::array<uint8_t, 4>& salt, uint64_t pn,
                                      bool header) {
  crypto::Aes256Gcm::Nonce n{};
  std::copy(salt.begin(), salt.end(), n.begin());
  const uint64_t v = header ? pn | (uint64_t{1} << 63) : pn;
  for (int i = 0; i < 8; ++i) n[4 + i] = static_cast<uint8_t>(v >> (56 - 8 * i));
  return n;
}

void write_header_tag(std::span<uint8_t> frame, const SecureLayout& at, crypto::Aes256Gcm& gcm,
                      const std::array<uint8_t, 4>& salt, uint64_t pn) {
  const crypto::Aes256Gcm::Tag htag = header_tag(frame, at, gcm, salt, pn);
  std::copy_n(htag.begin(), kHtagSize,
              frame.begin() + static_cast<std::ptrdiff_t>(at.sech() + kHtagOffset));
}

void seal_payload(std::span<uint8_t> frame, const SecureLayout& at, crypto::Aes256Gcm& gcm,
                  const std::array<uint8_t, 4>& salt, uint64_t pn) {
  const MaskedBlock block = masked_block(frame, at, false);
  const crypto::Aes256Gcm::Tag tag = gcm.seal(secure_nonce(salt, pn, false), block.span(),
                                              frame.subspan(at.header_end, at.tag - at.header_end));
  std::copy(tag.begin(), tag.end(), frame.begin() + static_cast<std::ptrdiff_t>(at.tag));
}

void write_icrc(std::span<uint8_t> frame, const SecureLayout& at) {
  const uint32_t icrc = wire::IcrcCalculator::icrc(frame.subspan(at.l3, at.icrc - at.l3));
  for (size_t i = 0; i < 4; ++i) frame[at.icrc + i] = static_cast<uint8_t>(icrc >> (24 - 8 * i));
}

void seal_frame(std::span<uint8_t> frame, const SecureLayout& at, crypto::Aes256Gcm& gcm,
                const std::array<uint8_t, 4>& salt, uint64_t pn) {
  write_header_tag(frame, at, gcm, salt, pn);
  seal_payload(frame, at, gcm, salt, pn);
  write_icrc(frame, at);
}

bool header_tag_verifies(std::span<const uint8_t> frame, const SecureLayout& at,
                         crypto::Aes256Gcm& gcm, const std::array<uint8_t, 4>& salt, uint64_t pn) {
  const crypto::Aes256Gcm::Tag want = header_tag(frame, at, gcm, salt, pn);
  return crypto::equal_in_constant_time(std::span(want).first(kHtagSize),
                                        frame.subspan(at.sech() + kHtagOffset, kHtagSize));
}

bool open_payload(std::span<const uint8_t> frame, const SecureLayout& at, crypto::Aes256Gcm& gcm,
                  const std::array<uint8_t, 4>& salt, uint64_t pn,
                  std::vector<uint8_t>& plaintext) {
  const MaskedBlock block = masked_block(frame, at, false);
  const auto ciphertext = frame.subspan(at.header_end, at.tag - at.header_end);
  plaintext.assign(ciphertext.begin(), ciphertext.end());
  crypto::Aes256Gcm::Tag tag{};
  std::copy_n(frame.begin() + static_cast<std::ptrdiff_t>(at.tag), tag.size(), tag.begin());
  return gcm.open(secure_nonce(salt, pn, false), block.span(), plaintext, tag);
}

}  // namespace mr::transport::ext
