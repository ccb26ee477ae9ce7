#include "reference/io/dpdk/namespaced_dpdk_link.h"

#include <optional>

namespace mr::io::dpdk {

Expected<DpdkLink, std::string> attach_dpdk_link_in(const NetworkNamespace& ns,
                                                    std::shared_ptr<DpdkEal> eal,
                                                    const std::string& devargs,
                                                    const DpdkLinkOptions& options) {
  std::optional<Expected<DpdkLink, std::string>> link;
  auto ran =
      ns.run_inside([&] { link.emplace(DpdkLink::attach(std::move(eal), devargs, options)); });
  if (!ran) return Unexpected(ran.error());
  if (!link) return Unexpected(ns.name() + ": " + devargs + ": not attached");
  if (!*link) return Unexpected(ns.name() + ": " + link->error());
  return std::move(**link);
}

}  // namespace mr::io::dpdk
