#include "reference/transport/ext/secure_receiver.h"

namespace mr::transport::ext {

SecureReceiver::SecureReceiver(const std::vector<SecurityAssociation>& sas,
                               const SecureParameters& params)
    : params_(params) {
  if (!sas.empty()) current_ = sas.front().epoch;
  for (const SecurityAssociation& sa : sas) install(sa);
}

bool SecureReceiver::install(const SecurityAssociation& sa) {
  if (installed(sa.epoch)) return false;
  epochs_.push_back(Epoch{sa, crypto::Aes256Gcm(sa.key),
                          ReplayWindow(params_.replay_window, !params_.accepts_reordered_pns)});
  return true;
}

bool SecureReceiver::installed(uint16_t epoch) const {
  for (const Epoch& e : epochs_)
    if (e.sa.epoch == epoch) return true;
  return false;
}

SecureReceiver::Epoch* SecureReceiver::find(uint16_t epoch) {
  for (Epoch& e : epochs_)
    if (e.sa.epoch == epoch) return &e;
  return nullptr;
}

bool SecureReceiver::acceptable(uint16_t epoch, uint64_t now_ns) const {
  if (epoch == current_ || epoch == static_cast<uint16_t>(current_ + 1)) return true;
  // The ext-secure-epoch-never-drains mutant keeps the previous epoch for ever.
  return previous_ && epoch == *previous_ &&
         (now_ns < previous_until_ns_ || !params_.drains_previous_epoch);
}

Expected<SecureReceiver::Key, SecureRefusal> SecureReceiver::admit(const wire::Sech& sech,
                                                                   uint64_t now_ns) {
  Epoch* e = find(sech.epoch.value());
  const bool known = sech.ver == wire::kExtVersion && sech.suite == wire::kSecureSuiteAes256Gcm &&
                     e != nullptr && e->sa.spi == sech.spi.value() && sech.pn.value() != 0 &&
                     (sech.pn.value() >> 63) == 0 && acceptable(sech.epoch.value(), now_ns);
  if (!known) return Unexpected(SecureRefusal::kUnknownKey);
  if (params_.checks_replay && e->window.is_replay(sech.pn.value()))
    return Unexpected(SecureRefusal::kReplay);
  return Key{&e->gcm, e->sa.salt};
}

void SecureReceiver::record(const wire::Sech& sech, uint64_t now_ns) {
  Epoch* e = find(sech.epoch.value());
  if (e == nullptr) return;
  e->window.record(sech.pn.value());
  if (sech.epoch.value() == static_cast<uint16_t>(current_ + 1)) {
    previous_ = current_;
    previous_until_ns_ = now_ns + params_.key_drain_ns;
    current_ = sech.epoch.value();
  }
}

}  // namespace mr::transport::ext
