// File: interop_command.h
//
// `metaroce interop`: the interop matrix of issue #7 (harness/interop), the reference and a
// real RDMA stack as peers in both directions, with the harness in the middle.
//   metaroce interop --dut rxe [--out DIR] [--seed N] [--quick] [--filter TEXT]
//                    [--mutant NAME]...
//       boots one Linux rxe guest, runs every cell (or the quick subset) over it, prints a
//       line per cell and writes DIR/matrix.json, DIR/matrix.md and DIR/cells/*.pcapng.
//       Exit status: 0 every cell passed, 1 a cell failed, 2 a harness error.
#pragma once

#include "harness/cli/command.h"

namespace mr::cli {

Runner setup_interop(CLI::App& app);

}  // namespace mr::cli
