#include "harness/fleet/termination_watch.h"

#include <pthread.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>
#include <string>
#include <utility>

namespace mr::fleet {
namespace {

sigset_t watched_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  return set;
}

}  // namespace

std::string signal_name(int signal) {
  if (signal == SIGTERM) return "SIGTERM";
  if (signal == SIGINT) return "SIGINT";
  return "signal " + std::to_string(signal);
}

TerminationWatch::TerminationWatch(std::function<void(int signal)> on_signal)
    : on_signal_(std::move(on_signal)) {
  const sigset_t set = watched_signals();
  pthread_sigmask(SIG_BLOCK, &set, &old_mask_);
  watcher_ = std::jthread([this](const std::stop_token& stop) { watch(stop); });
}

TerminationWatch::~TerminationWatch() {
  watcher_.request_stop();
  if (watcher_.joinable()) watcher_.join();
  // A signal still pending now takes its default action: the task's status is final.
  pthread_sigmask(SIG_SETMASK, &old_mask_, nullptr);
}

void TerminationWatch::watch(const std::stop_token& stop) {
  const sigset_t set = watched_signals();
  // Polled in short waits so that the destructor's stop request is seen within 100 ms.
  const timespec step{0, 100'000'000};
  while (!stop.stop_requested()) {
    const int sig = sigtimedwait(&set, nullptr, &step);
    if (sig < 0) continue;  // EAGAIN (no signal yet) or EINTR
    {
      const std::lock_guard lock(mutex_);
      if (!settled_) on_signal_(sig);
      settled_ = true;
    }
    _exit(128 + sig);
  }
}

void TerminationWatch::settle(const std::function<void()>& last_words) {
  const std::lock_guard lock(mutex_);
  if (settled_) return;
  last_words();
  settled_ = true;
}

}  // namespace mr::fleet
