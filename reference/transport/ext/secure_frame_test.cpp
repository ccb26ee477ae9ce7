#include "reference/transport/ext/secure_frame.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "reference/transport/ext/security_association.h"
#include "reference/wire/frame_decoder.h"

namespace mr::transport::ext {
namespace {

// Worked examples EX-S1 (a SEND_ONLY of "MetaRoCE") and EX-S2 (its ACK) of spec section 27,
// built by docs/spec/tools/secure.py: an independent implementation of the same layout.
const char* const kExS1 =
    "456a0070001140004011addac6120001c6120002c02112b7005c00000401ffff"
    "00000022c000000111000001000001010000000000000001bde3b84d2b7b9b59"
    "1400c02100000001000000010000000000040000fdcaccef3e1b85f1d146dd10"
    "ef9093a99b84688bd4f9ba9c1356bf40";
const char* const kExS2 =
    "45b80074001240004011ad87c6120002c6120001c02212b7006000001101ffff"
    "0000002140000001110000010000020200000000000000010b2b5ac3c083330f"
    "1f000001040000000000000000000003c0210008000000020004000000000000"
    "f906c3ef0c71fe183126b19e87adbc403d9f6b2d";

std::vector<uint8_t> ethernet_frame(const std::string& ip_hex) {
  std::vector<uint8_t> f = {2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x08, 0x00};
  std::string digits;
  for (char c : ip_hex)
    if (c != ' ') digits.push_back(c);
  for (size_t i = 0; i + 1 < digits.size(); i += 2)
    f.push_back(static_cast<uint8_t>(std::stoi(digits.substr(i, 2), nullptr, 16)));
  return f;
}

SecurityAssociation example_sa(bool requester_to_responder) {
  SecurityAssociation sa;
  sa.epoch = 1;
  for (size_t i = 0; i < sa.key.size(); ++i)
    sa.key[i] = static_cast<uint8_t>(i + (requester_to_responder ? 0x00 : 0x20));
  sa.salt = requester_to_responder ? std::array<uint8_t, 4>{0xa0, 0xa1, 0xa2, 0xa3}
                                   : std::array<uint8_t, 4>{0xb0, 0xb1, 0xb2, 0xb3};
  sa.spi = requester_to_responder ? 0x101 : 0x202;
  return sa;
}

wire::RocePacket decoded(const std::vector<uint8_t>& frame) {
  auto d = wire::decode_frame(frame);
  EXPECT_TRUE(d.has_value());
  return std::get<wire::DecodedRoce>(*d).packet;
}

TEST(SecureFrameTest, TheWorkedExamplesVerifyAndOpenToTheirPlaintext) {
  const std::vector<uint8_t> s1 = ethernet_frame(kExS1);
  const wire::RocePacket p = decoded(s1);
  ASSERT_TRUE(p.sech && p.sec_tag);
  const auto at = secure_layout(s1, p);
  ASSERT_TRUE(at);
  EXPECT_EQ(at->header_block_size(), 56u);  // BTH, SECH, MXH
  const SecurityAssociation sa = example_sa(true);
  crypto::Aes256Gcm gcm(sa.key);
  EXPECT_TRUE(header_tag_verifies(s1, *at, gcm, sa.salt, 1));
  std::vector<uint8_t> plain;
  ASSERT_TRUE(open_payload(s1, *at, gcm, sa.salt, 1, plain));
  EXPECT_EQ(std::string(plain.begin(), plain.end()), "MetaRoCE");

  const std::vector<uint8_t> s2 = ethernet_frame(kExS2);
  const auto at2 = secure_layout(s2, decoded(s2));
  ASSERT_TRUE(at2);
  EXPECT_EQ(at2->header_block_size(), 68u);  // BTH, SECH, AETH, SACKETH
  const SecurityAssociation back = example_sa(false);
  crypto::Aes256Gcm gcm2(back.key);
  EXPECT_TRUE(header_tag_verifies(s2, *at2, gcm2, back.salt, 1));
  EXPECT_TRUE(open_payload(s2, *at2, gcm2, back.salt, 1, plain));
  EXPECT_TRUE(plain.empty());
}

TEST(SecureFrameTest, SealingThePlaintextRebuildsTheExampleByteForByte) {
  const std::vector<uint8_t> want = ethernet_frame(kExS1);
  const wire::RocePacket p = decoded(want);
  const auto at = secure_layout(want, p);
  ASSERT_TRUE(at);
  std::vector<uint8_t> frame = want;
  // Plaintext back in, HTAG, tag and ICRC cleared: sealing must restore every byte.
  const std::string text = "MetaRoCE";
  std::copy(text.begin(), text.end(), frame.begin() + static_cast<std::ptrdiff_t>(at->header_end));
  std::fill(frame.begin() + static_cast<std::ptrdiff_t>(at->sech() + 16),
            frame.begin() + static_cast<std::ptrdiff_t>(at->sech() + 24), 0);
  std::fill(frame.begin() + static_cast<std::ptrdiff_t>(at->tag), frame.end(), 0);
  const SecurityAssociation sa = example_sa(true);
  crypto::Aes256Gcm gcm(sa.key);
  seal_frame(frame, *at, gcm, sa.salt, 1);
  EXPECT_EQ(frame, want);
}

TEST(SecureFrameTest, AnyChangedHeaderBytePayloadByteOrWrongKeyFailsVerification) {
  const std::vector<uint8_t> good = ethernet_frame(kExS1);
  const auto at = secure_layout(good, decoded(good));
  ASSERT_TRUE(at);
  const SecurityAssociation sa = example_sa(true);
  crypto::Aes256Gcm gcm(sa.key);
  std::vector<uint8_t> plain;
  for (size_t i = at->bth; i < at->tag; ++i) {
    if (i == at->bth + 4) continue;  // BTH byte 4 is masked, as for the ICRC
    std::vector<uint8_t> bad = good;
    bad[i] ^= 0x01;
    EXPECT_FALSE(open_payload(bad, *at, gcm, sa.salt, 1, plain)) << "byte " << i;
    if (i < at->header_end && (i < at->sech() + 16 || i >= at->sech() + 24))
      EXPECT_FALSE(header_tag_verifies(bad, *at, gcm, sa.salt, 1)) << "byte " << i;
  }
  std::vector<uint8_t> fecn = good;
  fecn[at->bth + 4] ^= 0x80;  // a switch's FECN changes nothing the AEAD reads
  EXPECT_TRUE(open_payload(fecn, *at, gcm, sa.salt, 1, plain));
  crypto::Aes256Gcm other(example_sa(false).key);
  EXPECT_FALSE(header_tag_verifies(good, *at, other, sa.salt, 1));
  EXPECT_FALSE(open_payload(good, *at, gcm, sa.salt, 2, plain));  // another PN, another nonce
}

TEST(SecureFrameTest, LayoutRefusesAFrameShorterThanItsHeaderBlockOrTag) {
  const std::vector<uint8_t> good = ethernet_frame(kExS1);
  const wire::RocePacket p = decoded(good);
  const auto whole = secure_layout(good, p);
  ASSERT_TRUE(whole);
  const std::vector<uint8_t> cut(good.begin(),
                                 good.begin() + static_cast<std::ptrdiff_t>(whole->header_end));
  EXPECT_FALSE(secure_layout(cut, p));
  EXPECT_TRUE(secure_layout(cut, p, /*whole=*/false));
  const std::vector<uint8_t> shorter(good.begin(), good.end() - 30);
  EXPECT_FALSE(secure_layout(shorter, p, false) && secure_layout(shorter, p));
  wire::RocePacket plain = p;
  plain.sech.reset();
  EXPECT_FALSE(secure_layout(good, plain));
}

TEST(SecureFrameTest, NoncesPutTheSaltThenThePnWithBit63ForTheHeaderTag) {
  const auto n = secure_nonce({0xa0, 0xa1, 0xa2, 0xa3}, 1, false);
  const auto h = secure_nonce({0xa0, 0xa1, 0xa2, 0xa3}, 1, true);
  EXPECT_EQ(n, (crypto::Aes256Gcm::Nonce{0xa0, 0xa1, 0xa2, 0xa3, 0, 0, 0, 0, 0, 0, 0, 1}));
  EXPECT_EQ(h, (crypto::Aes256Gcm::Nonce{0xa0, 0xa1, 0xa2, 0xa3, 0x80, 0, 0, 0, 0, 0, 0, 1}));
}

}  // namespace
}  // namespace mr::transport::ext
