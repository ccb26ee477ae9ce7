// File: secure_session.h
//
// The tester's end of a secure connection (spec section 19.4, `create_qp ... secure=1`):
// the keys the harness installs at the DUT, both directions, and what the tester does with
// them. A `<` line's frame is sealed as a conformant sender would (the next PN, the HTAG, the
// payload encrypted, the tag, the ICRC), except for each field the script writes itself, so
// that a script can send a replayed PN, a forged tag or an unknown epoch on purpose. A DUT
// packet is opened: its SX, SECH, tags and PN are judged (MR-SE-02 to MR-SE-04, MR-SE-12) and
// its payload decrypted, so `>` lines compare plaintext.
//
// The keys are section 27's example SA for epoch 1 (docs/spec/tools/secure.py verifies a
// capture with it) and, for another epoch e, the same keys with their first byte XORed with
// e >> 8 and their second with (e & 0xff) ^ 1; the SPI of epoch e is the example SPI +
// 0x10000 x (e - 1).
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "harness/protocol/dut_messages.h"
#include "harness/script/ast.h"
#include "reference/crypto/aes256_gcm.h"
#include "reference/error/expected.h"
#include "reference/transport/ext/security_association.h"
#include "reference/wire/frame_decoder.h"

namespace mr::engine {

// One way a DUT packet breaks secure mode.
struct SecureProblem {
  std::string field;  // "SECH.pn", "SecTag.tag", "BTH.sx"
  std::string expected;
  std::string actual;
  std::string clause;  // "MR-SE-03"
};

class SecureSession {
 public:
  // tester -> DUT and DUT -> tester SAs of `epoch`, as the harness installs them.
  static transport::ext::SecurityAssociation tester_to_dut(uint16_t epoch);
  static transport::ext::SecurityAssociation dut_to_tester(uint16_t epoch);
  // The DUT's side of epoch `epoch`'s keys, as modify_qp attrs.secure_sa carries them: it
  // sends with dut_to_tester and receives with tester_to_dut.
  static protocol::SecureSa dut_keys(uint16_t epoch);

  SecureSession();  // epoch 1, both directions

  // The harness installed `epoch` at the DUT, both directions (dut secure_install).
  void install(uint16_t epoch);
  bool installed(uint16_t epoch) const { return keys_.contains(epoch); }
  // The tester's end of epoch `epoch` for a tester QP: it sends with tester_to_dut and opens
  // with dut_to_tester.
  static transport::ext::SecurityAssociations tester_keys(uint16_t epoch) {
    return {.tx = {tester_to_dut(epoch)}, .rx = {dut_to_tester(epoch)}};
  }
  // Every epoch installed, oldest first.
  std::vector<uint16_t> epochs() const {
    std::vector<uint16_t> out;
    for (const auto& [epoch, keys] : keys_) out.push_back(epoch);
    return out;
  }
  uint32_t tester_spi(uint16_t epoch) const { return tester_to_dut(epoch).spi; }

  // Seals a synthesized `<` frame (BTH SX set, a SECH and a tag laid out) for `packet`:
  // PN, HTAG, packet tag and ICRC are computed unless the script wrote them (SECH.pn,
  // SECH.htag, SecTag.tag, BTH.icrc). Frames without SX are left alone. An error names what
  // cannot be sealed.
  Expected<void, std::string> seal(std::vector<uint8_t>& frame, const script::PacketExpr& packet);

  // Judges a DUT packet of the connection and, when its tag verifies, points its payload at
  // the plaintext (held here until the next open()). A CNP (TVer 0) is not protected.
  std::vector<SecureProblem> open(std::span<const uint8_t> frame, wire::DecodedRoce& roce);

  uint64_t last_tester_pn(uint16_t epoch) const;

 private:
  struct Keys {
    transport::ext::SecurityAssociation to_dut;
    transport::ext::SecurityAssociation to_tester;
    crypto::Aes256Gcm seal;  // tester -> DUT
    crypto::Aes256Gcm open;  // DUT -> tester
    uint64_t tester_pn = 0;  // the last PN the tester sent under this epoch
    uint64_t dut_pn = 0;     // the highest PN the DUT sent under this epoch
  };
  Keys* keys(uint16_t epoch);

  std::map<uint16_t, Keys> keys_;
  std::vector<uint8_t> plaintext_;
};

}  // namespace mr::engine
