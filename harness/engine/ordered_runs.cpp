#include "harness/engine/ordered_runs.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace mr::engine {
namespace {

// A harness fault inside a run is that run's error verdict, never a lost worker.
report::TestResult guarded(const RunFunction& run, size_t index) {
  try {
    return run(index);
  } catch (const std::exception& e) {
    report::TestResult r;
    r.verdict = report::Verdict::kError;
    r.reason = std::string("harness fault: ") + e.what();
    return r;
  }
}

bool stop_requested(const std::function<bool()>& stop) { return stop && stop(); }

bool run_serially(size_t count, const RunFunction& run, const DeliverFunction& deliver,
                  const std::function<bool()>& stop) {
  for (size_t i = 0; i < count; ++i) {
    if (stop_requested(stop)) return false;
    deliver(i, guarded(run, i));
  }
  return true;
}

// The shared state of a parallel run: which index starts next, and each finished result.
class Board {
 public:
  Board(size_t count, const std::function<bool()>& stop) : results_(count), stop_(stop) {}

  // The next index to run, or nullopt when all are taken or the run is stopping.
  std::optional<size_t> claim() {
    std::lock_guard lock(mutex_);
    if (stopping_ || next_ >= results_.size()) return std::nullopt;
    if (stop_requested(stop_)) {
      stopping_ = true;
      changed_.notify_all();
      return std::nullopt;
    }
    return next_++;
  }

  void finish(size_t index, report::TestResult result) {
    std::lock_guard lock(mutex_);
    results_[index] = std::move(result);
    changed_.notify_all();
  }

  // Index's result once it finished; nullopt when it will never start. The wait ends with
  // the run itself (every run is bounded by the engine's own bounded waits); the timeout
  // only lets a stop that no worker has seen yet be noticed here.
  std::optional<report::TestResult> take(size_t index) {
    std::unique_lock lock(mutex_);
    for (;;) {
      if (results_[index]) return std::move(*results_[index]);
      if (index >= next_ && (stopping_ || stop_requested(stop_))) {
        stopping_ = true;
        return std::nullopt;
      }
      changed_.wait_for(lock, std::chrono::milliseconds(50));
    }
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::optional<report::TestResult>> results_;
  size_t next_ = 0;
  bool stopping_ = false;
  const std::function<bool()>& stop_;
};

}  // namespace

bool run_in_order(size_t count, int workers, const RunFunction& run, const DeliverFunction& deliver,
                  const std::function<bool()>& stop) {
  const size_t threads = std::min(count, static_cast<size_t>(std::max(1, workers)));
  if (threads <= 1) return run_serially(count, run, deliver, stop);
  Board board(count, stop);
  bool complete = true;
  {
    std::vector<std::jthread> pool;
    pool.reserve(threads);
    for (size_t t = 0; t < threads; ++t) {
      pool.emplace_back([&] {
        while (auto index = board.claim()) board.finish(*index, guarded(run, *index));
      });
    }
    for (size_t i = 0; i < count; ++i) {
      auto result = board.take(i);
      if (!result) {
        complete = false;
        continue;  // never started; later ones that did still come in order
      }
      deliver(i, std::move(*result));
    }
  }  // the workers have nothing left to claim: joined here
  return complete;
}

}  // namespace mr::engine
