// File: aes256_gcm.h
//
// AES-256-GCM (FIPS 197, NIST SP 800-38D) with a 12-byte nonce and a 16-byte tag: the AEAD
// of MetaRoCE secure mode (spec section 19.4). OpenSSL's libcrypto does the work (AES-NI
// and carry-less multiply where the CPU has them); a cipher object holds its key schedule,
// so a packet costs no allocation.
//
//   Aes256Gcm gcm(key);
//   Aes256Gcm::Tag tag = gcm.seal(nonce, header_block, payload);   // payload encrypted in place
//   bool ok = gcm.open(nonce, header_block, payload, tag);         // decrypted in place if ok
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>

namespace mr::crypto {

// a == b, in a time that does not depend on where they differ (a tag check that exits early
// tells a forger how many bytes it got right).
bool equal_in_constant_time(std::span<const uint8_t> a, std::span<const uint8_t> b);

class Aes256Gcm {
 public:
  static constexpr size_t kKeySize = 32;
  static constexpr size_t kNonceSize = 12;
  static constexpr size_t kTagSize = 16;
  using Key = std::array<uint8_t, kKeySize>;
  using Nonce = std::array<uint8_t, kNonceSize>;
  using Tag = std::array<uint8_t, kTagSize>;

  explicit Aes256Gcm(const Key& key);
  Aes256Gcm(Aes256Gcm&&) noexcept;
  Aes256Gcm& operator=(Aes256Gcm&&) noexcept;
  ~Aes256Gcm();

  // Encrypts `text` in place and returns the tag over `aad` and the ciphertext.
  Tag seal(const Nonce& nonce, std::span<const uint8_t> aad, std::span<uint8_t> text);
  // True, with `text` decrypted in place, when `tag` verifies; false leaves `text` undefined
  // (partly decrypted): the caller discards the packet.
  bool open(const Nonce& nonce, std::span<const uint8_t> aad, std::span<uint8_t> text,
            const Tag& tag);

 private:
  struct Contexts;
  std::unique_ptr<Contexts> contexts_;
};

}  // namespace mr::crypto
