#include "reference/crypto/aes256_gcm.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace mr::crypto {
namespace {

std::vector<uint8_t> hex(const std::string& s) {
  std::vector<uint8_t> out;
  for (size_t i = 0; i + 1 < s.size(); i += 2)
    out.push_back(std::stoi(s.substr(i, 2), nullptr, 16));
  return out;
}

template <size_t N>
std::array<uint8_t, N> array_of(const std::string& s) {
  std::array<uint8_t, N> a{};
  const std::vector<uint8_t> v = hex(s);
  std::copy(v.begin(), v.end(), a.begin());
  return a;
}

struct Vector {
  const char* name;
  std::string key, nonce, aad, plaintext, ciphertext, tag;
};

// The AES-256 test cases of the GCM submission to NIST (McGrew and Viega), which SP 800-38D's
// validation vectors include; docs/spec/tools/aes_gcm.py checks the same ones.
const std::string kP3 =
    "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
    "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255";
const Vector kVectors[] = {
    {"tc13", std::string(64, '0'), std::string(24, '0'), "", "", "",
     "530f8afbc74536b9a963b4f1c4cb738b"},
    {"tc14", std::string(64, '0'), std::string(24, '0'), "", std::string(32, '0'),
     "cea7403d4d606b6e074ec5d3baf39d18", "d0d1c8a799996bf0265b98b5d48ab919"},
    {"tc16", "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308",
     "cafebabefacedbaddecaf888", "feedfacedeadbeeffeedfacedeadbeefabaddad2", kP3.substr(0, 120),
     "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa"
     "8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662",
     "76fc6ece0f4e1768cddf8853bb2d551b"},
};

TEST(Aes256GcmTest, SealGivesTheNistCiphertextAndTag) {
  for (const Vector& v : kVectors) {
    Aes256Gcm gcm(array_of<32>(v.key));
    std::vector<uint8_t> text = hex(v.plaintext);
    const Aes256Gcm::Tag tag = gcm.seal(array_of<12>(v.nonce), hex(v.aad), text);
    EXPECT_EQ(text, hex(v.ciphertext)) << v.name;
    EXPECT_EQ(std::vector<uint8_t>(tag.begin(), tag.end()), hex(v.tag)) << v.name;
  }
}

TEST(Aes256GcmTest, OpenRecoversThePlaintextWhenTheTagVerifies) {
  for (const Vector& v : kVectors) {
    Aes256Gcm gcm(array_of<32>(v.key));
    std::vector<uint8_t> text = hex(v.ciphertext);
    EXPECT_TRUE(gcm.open(array_of<12>(v.nonce), hex(v.aad), text, array_of<16>(v.tag))) << v.name;
    EXPECT_EQ(text, hex(v.plaintext)) << v.name;
  }
}

TEST(Aes256GcmTest, OpenRefusesAChangedTagCiphertextOrAdditionalData) {
  const Vector& v = kVectors[2];
  Aes256Gcm gcm(array_of<32>(v.key));
  const auto nonce = array_of<12>(v.nonce);
  auto tag = array_of<16>(v.tag);
  std::vector<uint8_t> text = hex(v.ciphertext);
  tag[15] ^= 1;
  EXPECT_FALSE(gcm.open(nonce, hex(v.aad), text, tag));
  tag[15] ^= 1;
  text = hex(v.ciphertext);
  text[0] ^= 0x80;
  EXPECT_FALSE(gcm.open(nonce, hex(v.aad), text, tag));
  text = hex(v.ciphertext);
  std::vector<uint8_t> aad = hex(v.aad);
  aad.back() ^= 1;
  EXPECT_FALSE(gcm.open(nonce, aad, text, tag));
  // The context is reusable after a refusal: the good packet still opens.
  text = hex(v.ciphertext);
  EXPECT_TRUE(gcm.open(nonce, hex(v.aad), text, tag));
}

TEST(Aes256GcmTest, OneCipherSealsManyPacketsWithDifferentNonces) {
  Aes256Gcm gcm(array_of<32>(kVectors[2].key));
  Aes256Gcm::Nonce a{}, b{};
  b[11] = 1;
  std::vector<uint8_t> x(40, 7), y(40, 7);
  const auto ta = gcm.seal(a, {}, x);
  const auto tb = gcm.seal(b, {}, y);
  EXPECT_NE(x, y);
  EXPECT_NE(ta, tb);
  EXPECT_TRUE(gcm.open(b, {}, y, tb));
  EXPECT_EQ(y, std::vector<uint8_t>(40, 7));
}

}  // namespace
}  // namespace mr::crypto
