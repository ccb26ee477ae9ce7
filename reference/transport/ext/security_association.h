// File: security_association.h
//
// Secure mode's keys (spec section 19.4): one security association (SA) per QP, direction
// and epoch, installed by the management plane (the control protocol's `secure_sa`). The
// SPI is chosen by the receiving end of the direction; the epoch is one more at each
// rotation. The example SA of section 27 is the one the test suite installs.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "reference/crypto/aes256_gcm.h"

namespace mr::transport::ext {

struct SecurityAssociation {
  uint16_t epoch = 0;
  crypto::Aes256Gcm::Key key{};
  std::array<uint8_t, 4> salt{};
  uint32_t spi = 0;
  friend bool operator==(const SecurityAssociation&, const SecurityAssociation&) = default;
};

// What one end of a QP holds: the SAs it sends with and those it receives with. At INIT to
// RTR each list holds the first epoch (and may hold the next); later installs add epochs.
struct SecurityAssociations {
  std::vector<SecurityAssociation> tx;
  std::vector<SecurityAssociation> rx;
  // N_SE_REKEY_PACKETS for this QP (section 30), when the management plane sets it.
  uint64_t rekey_packets = 0;  // 0: the device's default
};

}  // namespace mr::transport::ext
