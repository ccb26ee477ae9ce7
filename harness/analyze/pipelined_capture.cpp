#include "harness/analyze/pipelined_capture.h"

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "harness/analyze/frame_input.h"

namespace mr::analyze {
namespace {

// How far ahead of the frame being analysed its flow's index slot, then its state, are
// prefetched: far enough for a memory access (~100 ns) to land, within one batch.
constexpr size_t kSlotAhead = 8;
constexpr size_t kFlowAhead = 4;

struct Batch {
  std::array<FrameInput, kBatchFrames> frames;
  size_t count = 0;
  bool last = false;                      // the capture ends (cleanly or not) after it
  std::optional<io::CaptureError> error;  // set on the last batch of a corrupt capture
};

// A single-producer single-consumer ring of batches. `produced` and `consumed` count
// batches since the start; the producer fills batch n only once n - consumed < kBatches,
// the consumer reads it only once produced > n. Each side waits on the other's counter
// (std::atomic::wait: a futex, no spinning on a shared 2-core machine).
struct BatchRing {
  std::vector<Batch> batches = std::vector<Batch>(kBatches);
  std::atomic<uint64_t> produced{0};
  std::atomic<uint64_t> consumed{0};
  std::atomic<bool> stop{false};  // the consumer left early: the producer must end too
};

// The decode stage: fills batches until the capture ends, it is corrupt, or the consumer
// stops. Every wait ends: the consumer either frees a batch or sets `stop`.
void decode_stage(io::CaptureReader& reader, BatchRing& ring) {
  io::CapturedFrame frame;
  for (uint64_t n = 0;; ++n) {
    for (uint64_t done = ring.consumed.load(std::memory_order_acquire); n - done >= kBatches;
         done = ring.consumed.load(std::memory_order_acquire)) {
      if (ring.stop.load(std::memory_order_acquire)) return;
      ring.consumed.wait(done, std::memory_order_acquire);
    }
    if (ring.stop.load(std::memory_order_acquire)) return;
    Batch& b = ring.batches[n % kBatches];
    b.count = 0;
    b.last = false;
    b.error.reset();
    while (b.count < kBatchFrames) {
      auto got = reader.next_into(frame);
      if (!got) {
        b.error = std::move(got.error());
        b.last = true;
        break;
      }
      if (!*got) {
        b.last = true;
        break;
      }
      if (auto framing = io::framing_of(reader.path(), frame); !framing) {
        b.error = std::move(framing.error());
        b.last = true;
        break;
      }
      decode_frame_input(frame, b.frames[b.count++]);
    }
    ring.produced.store(n + 1, std::memory_order_release);
    ring.produced.notify_one();
    if (b.last) return;
  }
}

// Tells the decode stage to end whenever the analysis stage leaves, even by an exception,
// so that joining it cannot wait forever.
class StopOnExit {
 public:
  explicit StopOnExit(BatchRing& ring) : ring_(ring) {}
  StopOnExit(const StopOnExit&) = delete;
  StopOnExit& operator=(const StopOnExit&) = delete;
  ~StopOnExit() {
    ring_.stop.store(true, std::memory_order_release);
    ring_.consumed.fetch_add(kBatches, std::memory_order_release);  // wakes a full producer
    ring_.consumed.notify_one();
  }

 private:
  BatchRing& ring_;
};

}  // namespace

Expected<void, io::CaptureError> analyze_capture_pipelined(const std::string& path,
                                                           Analyzer& analyzer) {
  auto reader = io::open_for_decoding(path);
  if (!reader) return Unexpected(reader.error());
  auto ring = std::make_unique<BatchRing>();
  std::optional<io::CaptureError> error;
  {
    // Declared before the guard: the guard's stop runs first, then the join.
    std::jthread decoder([&] { decode_stage(*reader, *ring); });
    const StopOnExit stop_decoder(*ring);
    for (uint64_t n = 0;; ++n) {
      for (uint64_t ready = ring->produced.load(std::memory_order_acquire); ready <= n;
           ready = ring->produced.load(std::memory_order_acquire)) {
        ring->produced.wait(ready, std::memory_order_acquire);
      }
      const Batch& b = ring->batches[n % kBatches];
      for (size_t i = 0; i < b.count; ++i) {
        if (i + kSlotAhead < b.count) analyzer.prefetch_slot(b.frames[i + kSlotAhead]);
        if (i + kFlowAhead < b.count) analyzer.prefetch_flow(b.frames[i + kFlowAhead]);
        analyzer.add_input(b.frames[i]);
      }
      const bool last = b.last;
      if (last) error = b.error;
      ring->consumed.store(n + 1, std::memory_order_release);
      ring->consumed.notify_one();
      if (last) break;
    }
  }
  if (error) return Unexpected(*error);
  return {};
}

}  // namespace mr::analyze
