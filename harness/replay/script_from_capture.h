// File: script_from_capture.h
//
// `replay FILE --to-script OUT.mrt`: turns one recorded connection into a test case in which
// the tester plays the recorded requester and the DUT the responder. Every value that
// belongs to the live DUT is symbolic, as in hand-written test cases: PSNs are P + offset
// from the first request, VAs are A.va + offset from the lowest VA the requests use, R_Keys
// are A.rkey, the DUT's QPN is implicit. The memory the recorded responder read from (READ
// response data, the original values of atomics) is written into the DUT first, so that a
// conforming DUT answers with the recorded bytes. Requests keep their recorded pacing
// (`+dt`); answers are expected at any time (`*`) and must match field by field.
#pragma once

#include <string>

#include "harness/replay/recorded_connection.h"
#include "reference/error/expected.h"

namespace mr::replay {

struct ScriptOptions {
  std::string capture_name;  // for the metadata: where the exchange came from
  size_t connection_index = 0;
  std::string tp_id = "REPLAY-001";
};

Expected<std::string, std::string> script_from_connection(const RecordedConnection& c,
                                                          const ScriptOptions& options);

}  // namespace mr::replay
