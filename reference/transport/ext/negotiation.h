// File: negotiation.h
//
// Extension mode, agreed per QP at INIT to RTR from the local and the peer MXCAP (spec
// section 18, MR-EX-01 to MR-EX-03, MR-EX-10): Ext if and only if both blocks carry the
// magic, version 1, SACK and OOO; the features are the AND of the two (PATHPROBE and ADAPTIVE
// only with MULTIPATH), Features 2 likewise (NONFATAL only with RESYNC; SECURE needs the
// QP's security associations, or the transition fails rather than fall back). The agreement
// holds until the QP returns to RESET: QpExtension is that state machine.
//
//   QpExtension ext;
//   auto agreed = ext.init_to_rtr(local_cap, peer_cap, /*has_security=*/false);
//   if (!agreed) fail the modify_qp with agreed.error();
//   if (ext.mode() == ExtMode::kExt) ... ext.agreement().features & kMxcapMultipath ...
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "reference/error/expected.h"
#include "reference/wire/mxcap.h"

namespace mr::transport::ext {

enum class ExtMode : uint8_t {
  kBasePending,  // RESET or INIT: not agreed yet
  kBase,         // Part I only
  kExt,
};

struct ExtAgreement {
  uint8_t features = 0;   // wire::MxcapFeature bits both ends may use
  uint8_t features2 = 0;  // wire::MxcapFeature2 bits
  uint8_t peer_mpr = 1;   // the window this end may send into until an ACK says another
  uint8_t peer_planes = 1;
  bool has(wire::MxcapFeature f) const { return (features & f) != 0; }
  bool has(wire::MxcapFeature2 f) const { return (features2 & f) != 0; }
};

// The agreement two blocks make; none when they leave the QP in base mode; an error when the
// transition must fail (SECURE agreed without security associations).
Expected<std::optional<ExtAgreement>, std::string> negotiate(
    const std::optional<wire::Mxcap>& local, const std::optional<wire::Mxcap>& peer,
    bool has_security_associations);

class QpExtension {
 public:
  ExtMode mode() const { return mode_; }
  const ExtAgreement& agreement() const { return agreement_; }

  // INIT to RTR: decides the mode once. Later calls (any transition but to RESET) keep it.
  Expected<ExtMode, std::string> init_to_rtr(const std::optional<wire::Mxcap>& local,
                                             const std::optional<wire::Mxcap>& peer,
                                             bool has_security_associations);
  // To RESET: the next INIT to RTR negotiates again.
  void reset();

 private:
  ExtMode mode_ = ExtMode::kBasePending;
  ExtAgreement agreement_;
};

}  // namespace mr::transport::ext
