// File: peer_command.h
//
// `metaroce peer`: the reference implementation as the peer of unmodified rdma-core and
// perftest tools (issue #9, docs/interop.md).
//   metaroce peer pingpong server|client ADDR --iface IF [-s N] [-n N] [-m MTU] [--port P]
//   metaroce peer perftest server|client ADDR --tool ib_write_bw --iface IF [...]
//       the reference plays --ip/--mac on IF (libpcap) and speaks the tool's TCP exchange,
//       then its traffic; run it inside the namespace that holds IF;
//   metaroce peer rxe [--tool T --tool-role client|server -m MTU -s N -n N] [--matrix
//       default|full] [--out DIR]
//       boots the Linux rxe guest per run, runs the tool there against the reference,
//       captures and analyzes each run, and prints one table row per run.
#pragma once

#include "harness/cli/command.h"

namespace mr::cli {

Runner setup_peer(CLI::App& app);

}  // namespace mr::cli
