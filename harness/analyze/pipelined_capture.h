// File: pipelined_capture.h
//
// analyze_capture on two threads: a decode stage (the capture reader, pcapng comments, frame
// decode and ICRC) runs ahead on a thread of its own and hands batches of FrameInput to the
// calling thread, which runs the flow tracking and every checker in frame order. The
// Analyzer sees exactly the frames, in exactly the order, that analyze_capture gives it, so
// the violations, counts and flow summaries are the same; only the wall time differs.
// Memory: a fixed ring of batches between the stages (kBatches x kBatchFrames frames).
//
// Usage:
//   Analyzer a(print_violation);
//   auto done = analyze_capture_pipelined(path, a);  // as analyze_capture(path, a)
#pragma once

#include <cstddef>
#include <string>

#include "harness/analyze/analyzer.h"
#include "reference/error/expected.h"
#include "reference/io/capture_reader.h"

namespace mr::analyze {

// A batch amortises the hand-over (one atomic store and wake-up per batch, not per frame);
// eight in flight let the decode stage run ahead through the analysis stage's slower frames.
inline constexpr size_t kBatchFrames = 256;
inline constexpr size_t kBatches = 8;

Expected<void, io::CaptureError> analyze_capture_pipelined(const std::string& path,
                                                           Analyzer& analyzer);

}  // namespace mr::analyze
