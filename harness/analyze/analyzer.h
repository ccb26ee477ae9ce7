// File: analyzer.h
//
// The passive trace analyzer: feed it the frames of a capture in order; it decodes each
// (decode_frame_into, reusing one buffer), finds its flow, runs every checker of the table
// and reports violations through a callback as they are found. Frames decoded elsewhere
// (another thread: pipelined_capture.h) go in through add_input, in the same order. Memory: the
// flow table and the checkers' state, per flow; nothing is kept per packet.
//
// Usage:
//   Analyzer a([&](const Violation& v) { print(v); });
//   while (auto f = next_frame()) a.add(*f);
//   for (auto& [key, dir] : a.flows().directions()) summarize(dir);
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "harness/analyze/checker.h"
#include "harness/analyze/flow.h"
#include "harness/analyze/frame_input.h"
#include "harness/analyze/violation.h"
#include "reference/io/capture_reader.h"
#include "reference/wire/frame_decoder.h"

namespace mr::analyze {

struct AnalyzerCounts {
  uint64_t frames = 0;
  uint64_t roce = 0;
  uint64_t not_roce = 0;
  uint64_t malformed = 0;
  uint64_t snapped = 0;  // captured shorter than on the wire: not judged
  uint64_t violations = 0;
  uint64_t tester_violations = 0;
};

struct AnalyzerOptions {
  // A capture's timestamps are taken where it was captured, not where the DUT sent: on a
  // software bed (veth, libpcap) two frames the DUT sent 50 us apart may be stamped 36 us
  // apart. Spacing rules (MR-CC-03) allow this much; the harness passes the PIXIT's
  // absolute tolerance, `analyze` of a hardware-stamped capture none.
  uint64_t timestamp_slack_ns = 0;
};

class Analyzer final : private ViolationSink {
 public:
  using OnViolation = std::function<void(const Violation&)>;
  explicit Analyzer(OnViolation on_violation, AnalyzerOptions options = {});

  // One frame; its pcapng comment tells the tester's packets apart.
  void add(const io::CapturedFrame& frame);
  // The same for a frame's bytes alone (tests).
  void add_bytes(std::span<const uint8_t> bytes, uint64_t time_ns, bool by_tester = false);
  // A frame already decoded (decode_frame_input): everything add does after decoding.
  void add_input(const FrameInput& in);
  // Hints that `in` comes soon (no effect on the analysis): prefetch_slot some frames ahead
  // brings its flow's index slot into the cache, prefetch_flow a few frames later the
  // state that slot points at. A capture's flows interleave, so without them most frames
  // wait on a cache miss to their flow's state.
  void prefetch_slot(const FrameInput& in) const;
  void prefetch_flow(const FrameInput& in) const;

  const FlowTable& flows() const { return flows_; }
  const AnalyzerCounts& counts() const { return counts_; }

 private:
  void report(const PacketContext& c, std::string_view clause, std::string text) override;
  // MR-WF-* for a frame the codec refused, naming its PSN when its BTH was read.
  void report_malformed(const FrameInput& in);

  OnViolation on_violation_;
  AnalyzerOptions options_;
  std::vector<std::unique_ptr<Checker>> checkers_;  // one per checker_table() entry
  // The checkers a packet runs, in table order, by BTH opcode (kUnknownOpcode: one outside
  // the opcode table). Built once from CheckerEntry::runs_on, so that the packet path
  // tests no filter per checker (that test was a branch mispredicted on mixed traffic).
  static constexpr size_t kUnknownOpcode = 256;
  std::array<std::vector<Checker*>, kUnknownOpcode + 1> runs_for_;
  // The same for Ext packets (TVer 1): the HeaderScope::kEveryVersion checkers only.
  std::array<std::vector<Checker*>, kUnknownOpcode + 1> ext_runs_for_;
  FlowTable flows_;
  AnalyzerCounts counts_;
  FrameInput input_;  // reused by add and add_bytes
};

}  // namespace mr::analyze
