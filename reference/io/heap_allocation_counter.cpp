// File: heap_allocation_counter.cpp
#include "reference/io/heap_allocation_counter.h"

#include <atomic>
#include <cstdlib>
#include <new>

namespace {
std::atomic<uint64_t> g_process_allocations{0};
thread_local uint64_t t_thread_allocations = 0;
}  // namespace

// A replacement operator new has nothing but malloc to call.
void* operator new(size_t size) {
  g_process_allocations.fetch_add(1, std::memory_order_relaxed);
  ++t_thread_allocations;
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;  // NOLINT(cppcoreguidelines-no-malloc)
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }  // NOLINT(cppcoreguidelines-no-malloc)
void operator delete(void* p, size_t /*size*/) noexcept {
  std::free(p);  // NOLINT(cppcoreguidelines-no-malloc)
}

namespace mr::io {

uint64_t process_heap_allocations() { return g_process_allocations.load(); }
uint64_t thread_heap_allocations() { return t_thread_allocations; }

}  // namespace mr::io
