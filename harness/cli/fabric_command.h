// File: fabric_command.h
//
// `metaroce fabric --endpoint IF[,IF...] --endpoint IF[,IF...] ... [--leaves N --spines N]
//  [--rate-gbps G] [--delay-us D] [--queue-kib K] [--ecn] [--trim] [--loss PCT]
//  [--ipv6-ecmp flow|ports] [--seed N] [--duration-s S] [--poll-us U]`: the multi-plane fabric of
//  reference/io/fabric on the real clock,
// switching frames between interfaces of the namespace it runs in (each the fabric's end of
// a veth whose other end is a host's port) until SIGINT, SIGTERM or --duration-s; then
// what each plane carried, dropped (by cause), marked and trimmed. Flags: fabric_flags.h.
#pragma once

#include "harness/cli/command.h"

namespace mr::cli {

Runner setup_fabric(CLI::App& app);

}  // namespace mr::cli
