// File: wire_capture.h
//
// Records what crosses a Link into a pcapng file: in the interop matrix, one per cell,
// placed between the harness's two impairments so that it holds what each side really
// sent (the reference's frames before the harness drops them on the way out, the DUT's
// before it drops them on the way in). Comments say who sent each frame ("reference",
// "rxe"); neither is a tester comment, so the analyzer judges both sides. Thread-safe.
//
//   WireCapture capture(outgoing, "rxe");
//   capture.start("cells/ref-rxe_WRITE_4096_mtu1024_none.pcapng");  ... capture.stop();
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <span>
#include <string>

#include "reference/error/expected.h"
#include "reference/io/link.h"
#include "reference/io/pcapng_writer.h"

namespace mr::interop {

class WireCapture final : public io::Link {
 public:
  // `inner` must outlive the capture; `dut_name` is the comment of the frames it receives.
  WireCapture(io::Link& inner, std::string dut_name);

  // Starts a new file (closing the previous one); frames before start() are not recorded.
  Expected<void, std::string> start(const std::string& path);
  // Closes the file; returns the first write error since start(), and how many frames.
  Expected<uint64_t, std::string> stop();

  size_t send_burst(std::span<const io::Frame> frames) override;
  size_t receive_burst(std::span<io::Frame> out, uint64_t timeout_ns) override;
  std::string name() const override { return "capture:" + inner_.name(); }

 private:
  void record(const io::Frame& frame, uint64_t timestamp_ns, const std::string& comment);

  io::Link& inner_;
  std::string dut_name_;
  std::mutex mutex_;
  std::optional<io::PcapngWriter> writer_;
  std::string error_;
  uint64_t frames_ = 0;
};

}  // namespace mr::interop
