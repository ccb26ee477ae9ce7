// File: data_path_thread.h
//
// Runs a ReferenceBackend's data path on a thread of its own, for a backend on a real clock
// (the agent): service() in a loop, each step waiting at most max_wait_ns for frames. The
// thread stops and is joined when the object goes.
//
//   ReferenceBackend backend(link, clock, options);
//   DataPathThread pump(backend);   // frames flow until `pump` is destroyed
#pragma once

#include <atomic>
#include <cstdint>
#include <thread>

#include "harness/agent/reference_backend.h"

namespace mr::agent {

class DataPathThread {
 public:
  explicit DataPathThread(ReferenceBackend& backend, uint64_t max_wait_ns = 1'000'000)
      : backend_(backend), thread_([this, max_wait_ns] {
          while (!stop_.load(std::memory_order_relaxed)) backend_.service(max_wait_ns);
        }) {
    backend_.set_served_by_thread(true);
  }
  DataPathThread(const DataPathThread&) = delete;
  DataPathThread& operator=(const DataPathThread&) = delete;
  ~DataPathThread() {
    backend_.set_served_by_thread(false);
    stop_.store(true);
    thread_.join();
  }

 private:
  ReferenceBackend& backend_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace mr::agent
