// File: exchange_recorder.h
//
// The exchange of one test as the report and the pcapng show it: every frame into the test's
// capture (io::RecordingLink: time order, tester->dut and dut->tester interfaces, the script
// line in each frame's comment, the failure text in the comment of the frame a line failed
// on), and into the report's packet ladder, which shows only the first frames of driven
// traffic (a 1 MiB WRITE is a thousand).
//
//   ExchangeRecorder rec(ctx, options.capture_path);
//   const size_t before = ctx.result.failures.size();
//   const auto frame = rec.record(bytes, t_ns, false, "t.mrt:7 expect");
//   ...judge it, ctx.fail(...)...
//   rec.note_failures(frame, before);
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "harness/engine/fault_port.h"
#include "harness/engine/test_context.h"
#include "reference/io/recording_link.h"
#include "reference/wire/roce_packet.h"

namespace mr::engine {

class ExchangeRecorder {
 public:
  // No capture when `capture_path` is empty. One that cannot be created is the test's error
  // (ctx.error at line 1), so the test ends before it touches the DUT.
  ExchangeRecorder(TestContext& ctx, const std::string& capture_path);

  // A frame the script's lines sent or judged; `ref` names the line (empty: none did).
  // Returns the frame's index in the capture, for note_failures().
  std::optional<uint64_t> record(const std::vector<uint8_t>& frame, uint64_t t_ns, bool from_tester,
                                 const std::string& ref);
  // A frame of driven traffic: the tester QP's own, or the DUT's to it.
  void record_driven(const std::vector<uint8_t>& frame, uint64_t t_ns, bool from_tester);
  // A frame an `event` or `impair` line acted on: what the harness did to the exchange.
  void record_fault(const FaultEvent& e, const std::vector<uint8_t>& frame, uint64_t t_ns);
  // The failures reported since there were `failures_before` go into the frame's comment.
  void note_failures(std::optional<uint64_t> frame, size_t failures_before);

 private:
  std::string script_name() const;  // the script's file name, without its directory
  // Counts an Ext packet into the test's per-plane view (TestResult::paths).
  void tally(const wire::RocePacket& p, bool from_tester, bool sent, bool dropped);
  void tally(const std::vector<uint8_t>& frame, bool from_tester, bool sent, bool dropped);
  // A driven frame past the ladder's first ones: into the pcapng only, whole or snapped.
  void capture_bulk(const std::vector<uint8_t>& frame, uint64_t t_ns, bool from_tester,
                    std::string ref);
  // record() with or without counting the frame into the per-plane view.
  std::optional<uint64_t> record_traffic(const std::vector<uint8_t>& frame, uint64_t t_ns,
                                         bool from_tester, const std::string& ref, bool count);

  TestContext& ctx_;
  std::unique_ptr<io::RecordingLink> capture_;
  size_t driven_recorded_ = 0;
  size_t whole_bytes_ = 0;  // driven frames past the ladder recorded whole
  bool snapping_ = false;
  // Where each (direction, plane, EV) is in ctx_.result.paths.
  std::map<std::tuple<bool, uint8_t, uint16_t>, size_t> path_index_;
};

}  // namespace mr::engine
