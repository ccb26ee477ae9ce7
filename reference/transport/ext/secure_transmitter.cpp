#include "reference/transport/ext/secure_transmitter.h"

namespace mr::transport::ext {

SecureTransmitter::SecureTransmitter(const std::vector<SecurityAssociation>& sas,
                                     const SecureParameters& params)
    : params_(params) {
  for (const SecurityAssociation& sa : sas) install(sa);
}

bool SecureTransmitter::install(const SecurityAssociation& sa) {
  if (index_of(sa.epoch)) return false;
  keys_.push_back(Keyed{sa, crypto::Aes256Gcm(sa.key)});
  return true;
}

std::optional<size_t> SecureTransmitter::index_of(uint16_t epoch) const {
  for (size_t i = 0; i < keys_.size(); ++i)
    if (keys_[i].sa.epoch == epoch) return i;
  return std::nullopt;
}

std::optional<SecureTransmitter::Key> SecureTransmitter::next() {
  if (keys_.empty()) return std::nullopt;
  const bool asked = rotation_requested_ && params_.rotates_on_request;
  if (asked || pn_ >= params_.rekey_packets) {
    if (auto n = index_of(static_cast<uint16_t>(epoch() + 1))) {
      current_ = *n;
      pn_ = 0;
      rotation_requested_ = false;
    } else if (pn_ >= params_.rekey_packets) {
      return std::nullopt;
    }
  }
  if (params_.new_pn_per_packet || pn_ == 0) ++pn_;
  Keyed& k = keys_[current_];
  Key key{.gcm = &k.gcm, .salt = k.sa.salt};
  key.sech.epoch = k.sa.epoch;
  key.sech.spi = k.sa.spi;
  key.sech.pn = pn_;
  return key;
}

}  // namespace mr::transport::ext
