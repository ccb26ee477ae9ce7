// File: decode_command.h
//
// `metaroce decode FILE [--json]`: every frame of a pcap or pcapng file, decoded.
#pragma once

#include "harness/cli/command.h"

namespace mr::cli {

Runner setup_decode(CLI::App& app);

}  // namespace mr::cli
