// File: tool_output.h
//
// The success output of the unmodified tools (issue #9), parsed so that a run counts only
// when the tool itself says it finished:
//   ibv_rc_pingpong: "8192000 bytes in 1.23 seconds = 53.28 Mbit/sec" and
//                    "1000 iters in 1.23 seconds = 1230.00 usec/iter";
//   perftest:        its result table, a header line starting "#bytes" and a row of numbers
//                    under it (bandwidth: #bytes #iterations BW peak BW average MsgRate;
//                    latency: #bytes #iterations t_min t_max t_typical t_avg ...). The server
//                    of a one-sided test prints the table frame without a row.
//
//   auto pp = parse_pingpong_output(output);   // or "no \"bytes in\" line in ..."
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "reference/error/expected.h"

namespace mr::peer {

struct PingpongResult {
  uint64_t bytes = 0;
  double seconds = 0;
  double mbit_per_sec = 0;
  uint64_t iters = 0;
  double usec_per_iter = 0;
};

Expected<PingpongResult, std::string> parse_pingpong_output(std::string_view output);

struct PerftestResult {
  std::string header;            // the "#bytes ..." line, trimmed
  std::vector<double> row;       // the numbers under it; empty when the tool printed none
  bool bandwidth = false;        // "BW average" in the header
  std::string describe() const;  // "BW average 123.45 MB/sec" or "t_typical 12.3 usec"
};

// The table's header must be there; a row only when `row_required`.
Expected<PerftestResult, std::string> parse_perftest_output(std::string_view output,
                                                            bool row_required);

}  // namespace mr::peer
