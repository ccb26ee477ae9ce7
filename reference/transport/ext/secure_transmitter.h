// File: secure_transmitter.h
//
// The sending half of secure mode on one QP (spec section 19.4): which SA protects the
// next packet and its PN. PNs start at 1 in each epoch and rise by one per transmission,
// retransmissions, probes and RESYNCs included (MR-SE-04); the sender moves to the next
// epoch when the management plane asks or before N_SE_REKEY_PACKETS, if that epoch's key
// is installed, and otherwise sends nothing past the limit (MR-SE-08).
//
//   SecureTransmitter tx(sas.tx, params);
//   if (auto k = tx.next()) { frame's SECH = k->sech; seal_frame(frame, at, *k->gcm, k->salt, pn);
//   }
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "reference/crypto/aes256_gcm.h"
#include "reference/transport/ext/secure_parameters.h"
#include "reference/transport/ext/security_association.h"
#include "reference/wire/sech.h"

namespace mr::transport::ext {

class SecureTransmitter {
 public:
  // `sas` holds at least one SA; the first is the current epoch.
  SecureTransmitter(const std::vector<SecurityAssociation>& sas, const SecureParameters& params);

  // A later epoch's SA (the management plane's install before a rotation); false, changing
  // nothing, for an epoch already installed (its PNs must not start again).
  bool install(const SecurityAssociation& sa);
  bool installed(uint16_t epoch) const { return index_of(epoch).has_value(); }
  // The management plane asks for a rotation: the next packet goes under the next epoch
  // if its key is installed.
  void request_rotation() { rotation_requested_ = true; }

  struct Key {
    wire::Sech sech;  // Ver, Suite, epoch, SPI and PN; the HTAG is the sealer's
    crypto::Aes256Gcm* gcm = nullptr;
    std::array<uint8_t, 4> salt{};
  };
  // The key and SECH of the next packet, its PN taken; nullopt when the epoch is used up
  // and no next key is installed (the packet must not be sent).
  std::optional<Key> next();

  uint16_t epoch() const { return keys_[current_].sa.epoch; }
  uint64_t packets_in_epoch() const { return pn_; }

 private:
  struct Keyed {
    SecurityAssociation sa;
    crypto::Aes256Gcm gcm;
  };
  std::optional<size_t> index_of(uint16_t epoch) const;

  std::vector<Keyed> keys_;
  SecureParameters params_;
  size_t current_ = 0;
  uint64_t pn_ = 0;  // the last PN sent under the current epoch
  bool rotation_requested_ = false;
};

}  // namespace mr::transport::ext
