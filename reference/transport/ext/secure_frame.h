// File: secure_frame.h
//
// The AEAD of secure mode on a frame's bytes (spec section 19.4): the header tag (HTAG)
// over the header block, the payload and pad encrypted in place, the packet tag, and the
// ICRC over the result. The codec has already laid the frame out (BTH with SX, SECH, the
// headers of table 19.1, payload, pad, tag, ICRC); these functions only fill and check it.
// The reference's sender and receiver use them, and so does the tester for `<` and `>`
// lines, so both ends compute one way.
//
//   auto at = secure_layout(frame, decoded.packet);      // where the parts lie
//   seal_frame(frame, *at, gcm, sa.salt, pn);            // sender
//   header_tag_verifies(frame, *at, gcm, sa.salt, pn);   // receiver, any packet
//   open_payload(frame, *at, gcm, sa.salt, pn, plain);   // receiver, a whole packet
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "reference/crypto/aes256_gcm.h"
#include "reference/wire/roce_packet.h"

namespace mr::transport::ext {

// Offsets into an Ethernet frame.
struct SecureLayout {
  size_t l3 = 0;          // first byte of the IP header
  size_t bth = 0;         // first byte of the BTH: the header block starts here
  size_t header_end = 0;  // one past the header block: the payload starts here
  size_t tag = 0;         // the packet tag (meaningful only for a whole packet)
  size_t icrc = 0;        // the ICRC (likewise)
  size_t sech() const { return bth + wire::kBthSize; }
  size_t header_block_size() const { return header_end - bth; }
};

// Where a decoded secure packet's parts are, from its opcode's header set (table 19.1) and
// its IP length. nullopt when it has no SECH or the frame is shorter than its header block;
// `whole` false (a trimmed frame) asks for the header block only.
std::optional<SecureLayout> secure_layout(std::span<const uint8_t> frame, const wire::RocePacket& p,
                                          bool whole = true);

// The 12-byte nonces: salt | PN, with bit 63 set for the header tag's.
crypto::Aes256Gcm::Nonce secure_nonce(const std::array<uint8_t, 4>& salt, uint64_t pn, bool header);

// Fills the HTAG, encrypts payload and pad, writes the tag and the ICRC. The SECH's other
// fields (and the PN) are already in the frame.
void seal_frame(std::span<uint8_t> frame, const SecureLayout& at, crypto::Aes256Gcm& gcm,
                const std::array<uint8_t, 4>& salt, uint64_t pn);
// The three steps of seal_frame, for a tester that leaves some of them to its script.
void write_header_tag(std::span<uint8_t> frame, const SecureLayout& at, crypto::Aes256Gcm& gcm,
                      const std::array<uint8_t, 4>& salt, uint64_t pn);
void seal_payload(std::span<uint8_t> frame, const SecureLayout& at, crypto::Aes256Gcm& gcm,
                  const std::array<uint8_t, 4>& salt, uint64_t pn);
void write_icrc(std::span<uint8_t> frame, const SecureLayout& at);

// True when the SECH's HTAG is the header tag of the header block.
bool header_tag_verifies(std::span<const uint8_t> frame, const SecureLayout& at,
                         crypto::Aes256Gcm& gcm, const std::array<uint8_t, 4>& salt, uint64_t pn);

// True when the packet tag verifies; `plaintext` then holds payload and pad decrypted.
bool open_payload(std::span<const uint8_t> frame, const SecureLayout& at, crypto::Aes256Gcm& gcm,
                  const std::array<uint8_t, 4>& salt, uint64_t pn, std::vector<uint8_t>& plaintext);

}  // namespace mr::transport::ext
