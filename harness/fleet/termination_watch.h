// File: termination_watch.h
//
// Slurm stops a task that reaches its time limit, or that scancel names, with SIGTERM and,
// KillWait seconds later, SIGKILL. While a TerminationWatch lives, SIGTERM and SIGINT are
// blocked in every thread and a thread of its own waits for them: on one it calls
// `on_signal` (outside any signal handler, so it may write files freely) and ends the
// process with 128 + the signal. settle() runs the task's last words under the same lock,
// so a final status and a "killed" one never interleave and the later never overwrites.
//
// Construct it before the process starts any other thread: threads inherit the mask.
//
//   TerminationWatch watch([&](int sig) { write_status(path, killed(status, sig)); });
//   ... the work ...
//   watch.settle([&] { write_status(path, finished(status)); });
#pragma once

#include <signal.h>

#include <functional>
#include <mutex>
#include <thread>

namespace mr::fleet {

class TerminationWatch {
 public:
  explicit TerminationWatch(std::function<void(int signal)> on_signal);
  ~TerminationWatch();
  TerminationWatch(const TerminationWatch&) = delete;
  TerminationWatch& operator=(const TerminationWatch&) = delete;

  // Runs `last_words` unless a signal got there first; later signals end the process
  // without calling on_signal.
  void settle(const std::function<void()>& last_words);

 private:
  void watch(const std::stop_token& stop);

  std::function<void(int)> on_signal_;
  std::mutex mutex_;
  bool settled_ = false;
  sigset_t old_mask_{};
  std::jthread watcher_;
};

// "SIGTERM", "SIGINT", or "signal N".
std::string signal_name(int signal);

}  // namespace mr::fleet
