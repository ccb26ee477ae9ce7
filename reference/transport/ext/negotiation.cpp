// File: negotiation.cpp
#include "reference/transport/ext/negotiation.h"

#include <algorithm>

namespace mr::transport::ext {

using wire::Mxcap;

Expected<std::optional<ExtAgreement>, std::string> negotiate(const std::optional<Mxcap>& local,
                                                             const std::optional<Mxcap>& peer,
                                                             bool has_security_associations) {
  if (!local || !peer || !local->enables_ext() || !peer->enables_ext())
    return std::optional<ExtAgreement>();
  ExtAgreement a;
  a.features = local->features.value() & peer->features.value();
  if ((a.features & wire::kMxcapMultipath) == 0)
    a.features &= static_cast<uint8_t>(~(wire::kMxcapPathProbe | wire::kMxcapAdaptive));
  a.features2 = local->features2.value() & peer->features2.value() &
                static_cast<uint8_t>(~wire::kMxcapFeatures2Reserved);
  if ((a.features2 & wire::kMxcapResync) == 0)
    a.features2 &= static_cast<uint8_t>(~wire::kMxcapNonFatal);
  if ((a.features2 & wire::kMxcapSecure) != 0 && !has_security_associations)
    return Unexpected(std::string(
        "INIT to RTR: both MXCAPs carry SECURE but the QP has no security associations; the "
        "transition fails rather than fall back to an unprotected QP (MR-SE-01)"));
  a.peer_mpr = std::max<uint8_t>(peer->mpr.value(), 1);
  a.peer_planes = std::clamp<uint8_t>(peer->planes.value(), 1, 16);
  return std::optional<ExtAgreement>(a);
}

Expected<ExtMode, std::string> QpExtension::init_to_rtr(const std::optional<Mxcap>& local,
                                                        const std::optional<Mxcap>& peer,
                                                        bool has_security_associations) {
  if (mode_ != ExtMode::kBasePending) return mode_;  // fixed until RESET (MR-EX-10)
  auto agreed = negotiate(local, peer, has_security_associations);
  if (!agreed) return Unexpected(agreed.error());
  mode_ = *agreed ? ExtMode::kExt : ExtMode::kBase;
  agreement_ = agreed->value_or(ExtAgreement{});
  return mode_;
}

void QpExtension::reset() {
  mode_ = ExtMode::kBasePending;
  agreement_ = ExtAgreement{};
}

}  // namespace mr::transport::ext
