#include "reference/crypto/aes256_gcm.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <limits>
#include <stdexcept>

namespace mr::crypto {

namespace {

struct CipherContextFree {
  void operator()(EVP_CIPHER_CTX* c) const { EVP_CIPHER_CTX_free(c); }
};
using CipherContext = std::unique_ptr<EVP_CIPHER_CTX, CipherContextFree>;

// One context per direction, keyed once: each packet then only sets its nonce.
CipherContext keyed(const Aes256Gcm::Key& key, bool encrypt) {
  CipherContext c(EVP_CIPHER_CTX_new());
  if (!c) throw std::bad_alloc();
  const int ok = encrypt
                     ? EVP_EncryptInit_ex(c.get(), EVP_aes_256_gcm(), nullptr, key.data(), nullptr)
                     : EVP_DecryptInit_ex(c.get(), EVP_aes_256_gcm(), nullptr, key.data(), nullptr);
  // Only an out-of-memory libcrypto fails here: a key is any 32 bytes.
  if (ok != 1) throw std::runtime_error("libcrypto: AES-256-GCM key set-up failed");
  return c;
}

int length_of(std::span<const uint8_t> s) {
  // A frame is at most a jumbo frame: far below INT_MAX, which libcrypto's lengths are.
  if (s.size() > static_cast<size_t>(std::numeric_limits<int>::max()))
    throw std::length_error("AES-256-GCM: input above INT_MAX bytes");
  return static_cast<int>(s.size());
}

}  // namespace

struct Aes256Gcm::Contexts {
  CipherContext encrypt;
  CipherContext decrypt;
};

bool equal_in_constant_time(std::span<const uint8_t> a, std::span<const uint8_t> b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

Aes256Gcm::Aes256Gcm(const Key& key)
    : contexts_(std::make_unique<Contexts>(Contexts{keyed(key, true), keyed(key, false)})) {}
Aes256Gcm::Aes256Gcm(Aes256Gcm&&) noexcept = default;
Aes256Gcm& Aes256Gcm::operator=(Aes256Gcm&&) noexcept = default;
Aes256Gcm::~Aes256Gcm() = default;

Aes256Gcm::Tag Aes256Gcm::seal(const Nonce& nonce, std::span<const uint8_t> aad,
                               std::span<uint8_t> text) {
  EVP_CIPHER_CTX* c = contexts_->encrypt.get();
  int n = 0;
  Tag tag{};
  // The library's own results are checked: each call fails only on misuse of the context.
  bool ok = EVP_EncryptInit_ex(c, nullptr, nullptr, nullptr, nonce.data()) == 1;
  ok = ok && (aad.empty() || EVP_EncryptUpdate(c, nullptr, &n, aad.data(), length_of(aad)) == 1);
  ok = ok &&
       (text.empty() || EVP_EncryptUpdate(c, text.data(), &n, text.data(), length_of(text)) == 1);
  ok = ok && EVP_EncryptFinal_ex(c, text.data() + text.size(), &n) == 1;
  ok = ok && EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_GET_TAG, kTagSize, tag.data()) == 1;
  if (!ok) throw std::runtime_error("libcrypto: AES-256-GCM seal failed");
  return tag;
}

bool Aes256Gcm::open(const Nonce& nonce, std::span<const uint8_t> aad, std::span<uint8_t> text,
                     const Tag& tag) {
  EVP_CIPHER_CTX* c = contexts_->decrypt.get();
  int n = 0;
  Tag expected = tag;  // the ctrl call takes a non-const pointer
  bool ok = EVP_DecryptInit_ex(c, nullptr, nullptr, nullptr, nonce.data()) == 1;
  ok = ok && (aad.empty() || EVP_DecryptUpdate(c, nullptr, &n, aad.data(), length_of(aad)) == 1);
  ok = ok &&
       (text.empty() || EVP_DecryptUpdate(c, text.data(), &n, text.data(), length_of(text)) == 1);
  ok = ok && EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_SET_TAG, kTagSize, expected.data()) == 1;
  // Final is where the tag is compared (in constant time).
  return ok && EVP_DecryptFinal_ex(c, text.data() + text.size(), &n) == 1;
}

}  // namespace mr::crypto
