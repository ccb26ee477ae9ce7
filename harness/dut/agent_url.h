// File: agent_url.h
//
// The agent form of the --dut option, "agent://HOST:PORT" (HOST may be a bracketed IPv6
// address), parsed in one place for every command that takes it (run, replay, doctor).
//
// Usage:
//   auto a = parse_agent_url("agent://198.18.0.2:7000");  // {"198.18.0.2", 7000}
//   if (!a) die(a.error());  // "--dut agent://x: ..."
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "reference/error/expected.h"

namespace mr::dut {

// {HOST, PORT}; an error names the option's text and what is wrong with it.
Expected<std::pair<std::string, uint16_t>, std::string> parse_agent_url(const std::string& url);

}  // namespace mr::dut
