// File: pixit.h
//
// The test-bed parameters the engine uses (docs/spec/pixit.md): addresses, timing
// tolerance, timeouts. Read from a PIXIT JSON file; errors name the file and the field.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "reference/error/expected.h"
#include "reference/wire/address.h"

namespace mr::engine {

struct Pixit {
  std::string name;
  wire::MacAddress tester_mac;
  wire::MacAddress dut_mac;
  wire::Ipv4Address tester_ip;
  wire::Ipv4Address dut_ip;
  // IPv6 QPs (create_qp ipv6=1) need both; a PIXIT without them has no IPv6 test bed.
  std::optional<wire::Ipv6Address> tester_ip6;
  std::optional<wire::Ipv6Address> dut_ip6;
  uint32_t tester_qpn_base = 17;
  double tolerance_abs_ms = 2;
  double tolerance_percent = 12.5;
  uint64_t expect_ms = 100;       // how long a `>` waits when its time is `*`
  uint64_t no_packet_ms = 50;     // the quiet period that ends a test
  uint64_t completion_ms = 1000;  // how long expect_completion polls
  nlohmann::json raw;

  // A number of the "parameters" object (the spec's section 30 names: N_EV_DEFAULT, ...);
  // `fallback` when the PIXIT does not give it as a number.
  double parameter(const std::string& name, double fallback) const;

  static Expected<Pixit, std::string> load(const std::string& path);
  static Expected<Pixit, std::string> from_json(const nlohmann::json& j, const std::string& origin);
};

}  // namespace mr::engine
