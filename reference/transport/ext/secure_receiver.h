// File: secure_receiver.h
//
// The receiving half of secure mode on one QP (spec section 19.4): which SECHs name a key
// the QP may use now, replay (MR-SE-06, MR-SE-07), and the epoch change (MR-SE-09): the
// current epoch and the installed next one are accepted; the first packet authenticated
// under the next makes it current, and the previous one stays acceptable for
// T_SE_KEY_DRAIN. The caller verifies the tags between admit() and record().
//
//   auto k = rx.admit(*p.sech, now);          // kUnknownKey, kReplay, or the key
//   if (k && open_payload(frame, at, *k->gcm, k->salt, pn, plain)) rx.record(*p.sech, now);
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "reference/crypto/aes256_gcm.h"
#include "reference/error/expected.h"
#include "reference/transport/ext/replay_window.h"
#include "reference/transport/ext/secure_parameters.h"
#include "reference/transport/ext/security_association.h"
#include "reference/wire/sech.h"

namespace mr::transport::ext {

enum class SecureRefusal : uint8_t {
  kUnknownKey,  // Ver, Suite, SPI or epoch name no SA acceptable now (se_auth_fail)
  kReplay,      // se_replay
};

class SecureReceiver {
 public:
  SecureReceiver(const std::vector<SecurityAssociation>& sas, const SecureParameters& params);

  // False, changing nothing, for an epoch already installed: its replay window must not
  // start again (MR-SE-06).
  bool install(const SecurityAssociation& sa);
  bool installed(uint16_t epoch) const;

  struct Key {
    crypto::Aes256Gcm* gcm = nullptr;
    std::array<uint8_t, 4> salt{};
  };
  Expected<Key, SecureRefusal> admit(const wire::Sech& sech, uint64_t now_ns);
  // An authenticated packet: its PN is seen; a next-epoch packet makes its epoch current.
  void record(const wire::Sech& sech, uint64_t now_ns);

  uint16_t current_epoch() const { return current_; }

 private:
  struct Epoch {
    SecurityAssociation sa;
    crypto::Aes256Gcm gcm;
    ReplayWindow window;
  };
  Epoch* find(uint16_t epoch);
  bool acceptable(uint16_t epoch, uint64_t now_ns) const;

  std::vector<Epoch> epochs_;
  SecureParameters params_;
  uint16_t current_ = 0;
  std::optional<uint16_t> previous_;
  uint64_t previous_until_ns_ = 0;
};

}  // namespace mr::transport::ext
