// File: qos_parse.h
//
// Parsers for what iproute2's dcb and ethtool print (text, not JSON: `dcb -j` key names
// changed between iproute2 releases, the text did not). Each takes the whole output and
// ignores lines it does not know.
//
//   parse_pfc_priorities("prio-pfc 0:off 1:off 2:off 3:on 4:off 5:off 6:off 7:off")  // {3}
//   parse_dscp_prio("dscp-prio 26:3 CS6:6")                                         // {26:3, 48:6}
//   parse_ethtool_features("rx-checksumming: on [fixed]\n")  // {"rx-checksumming": "on [fixed]"}
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mr::doctor {

// The priorities whose PFC is on; nullopt when there is no prio-pfc line at all.
std::optional<std::vector<uint32_t>> parse_pfc_priorities(std::string_view text);
// DSCP -> priority from the dscp-prio line(s); DSCP given as a number or a name (CS3, AF41,
// EF), since dcb prints names unless -N is honoured.
std::map<uint32_t, uint32_t> parse_dscp_prio(std::string_view text);
// `ethtool -k` lines "name: value"; the header line and indentation are dropped.
std::map<std::string, std::string> parse_ethtool_features(std::string_view text);

}  // namespace mr::doctor
