#include "reference/io/namespaced_pcap_link.h"

#include <optional>

namespace mr::io {

Expected<PcapLink, std::string> open_pcap_link_in(const NetworkNamespace& ns,
                                                  const std::string& interface,
                                                  const PcapLinkOptions& options) {
  std::optional<Expected<PcapLink, std::string>> link;
  auto ran = ns.run_inside([&] { link.emplace(PcapLink::open(interface, options)); });
  if (!ran) return Unexpected(ran.error());
  if (!link) return Unexpected(ns.name() + ": " + interface + ": not opened");
  if (!*link) return Unexpected(ns.name() + ": " + link->error());
  return std::move(**link);
}

}  // namespace mr::io
