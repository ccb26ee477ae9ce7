#include "reference/io/veth_pair.h"

#include "reference/wire/address.h"

namespace mr::io {
namespace {

Expected<void, std::string> configure(NetworkNamespace& ns, const std::string& interface,
                                      const std::optional<std::string>& ipv4,
                                      const VethPairOptions& options) {
  // Without IPv6 the kernel stays silent; with it, skip duplicate address detection so
  // that its link-local address is usable at once (nobody else is on a test veth).
  const std::string path = "/proc/sys/net/ipv6/conf/" + interface +
                           (options.kernel_ipv6 ? "/accept_dad" : "/disable_ipv6");
  const std::string value = options.kernel_ipv6 ? "0" : "1";
  if (auto set = ns.write_sysctl(path, value); !set) return Unexpected(set.error());
  auto mtu = ns.ip({"link", "set", interface, "mtu", std::to_string(options.mtu)});
  if (!mtu) return Unexpected(mtu.error());
  if (ipv4) {
    if (auto added = ns.ip({"addr", "add", *ipv4, "dev", interface}); !added) {
      return Unexpected(added.error());
    }
  }
  if (auto up = ns.ip({"link", "set", interface, "up"}); !up) return Unexpected(up.error());
  return {};
}

}  // namespace

bool is_benchmarking_cidr(const std::string& cidr) {
  const size_t slash = cidr.find('/');
  if (slash == std::string::npos) return false;
  const auto address = wire::Ipv4Address::parse(cidr.substr(0, slash));
  const std::string length = cidr.substr(slash + 1);
  if (!address || length.empty() || length.size() > 2 ||
      length.find_first_not_of("0123456789") != std::string::npos) {
    return false;
  }
  const int bits = std::stoi(length);
  // 198.18.0.0/15 is 198.18.0.0 - 198.19.255.255.
  return bits >= 15 && bits <= 32 && address->bytes[0] == 198 &&
         (address->bytes[1] == 18 || address->bytes[1] == 19);
}

Expected<VethPair, std::string> VethPair::create(const VethPairOptions& options) {
  for (const auto& cidr : {options.kernel_ipv4_a, options.kernel_ipv4_b}) {
    if (cidr && !is_benchmarking_cidr(*cidr)) {
      return Unexpected(*cidr + ": test addresses must lie in 198.18.0.0/15");
    }
  }
  auto a = NetworkNamespace::create();
  if (!a) return Unexpected(a.error());
  auto b = NetworkNamespace::create();
  if (!b) return Unexpected(b.error());
  VethPair pair(std::move(*a), std::move(*b));
  auto made = pair.a_.ip({"link", "add", kInterfaceA, "type", "veth", "peer", "name", kInterfaceB,
                          "netns", pair.b_.name()});
  if (!made) return Unexpected(made.error());
  if (auto ok = configure(pair.a_, kInterfaceA, options.kernel_ipv4_a, options); !ok) {
    return Unexpected(ok.error());
  }
  if (auto ok = configure(pair.b_, kInterfaceB, options.kernel_ipv4_b, options); !ok) {
    return Unexpected(ok.error());
  }
  return pair;
}

}  // namespace mr::io
