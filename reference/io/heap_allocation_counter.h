// File: heap_allocation_counter.h
//
// Counts every operator new of the process, for the tests and benchmarks that show a hot path
// allocates nothing in its steady state (fabric, DPDK link). Linking this (testonly) library
// replaces the global operator new and delete (link it statically, linkstatic = True: under
// ASan a shared library's operator new loses to the sanitizer's); read the counters before
// and after the code under test and compare.
//
//   const uint64_t before = thread_heap_allocations();
//   link.send_burst(frames);
//   EXPECT_EQ(thread_heap_allocations() - before, 0U);
#pragma once

#include <cstdint>

namespace mr::io {

// Allocations by every thread of the process so far.
uint64_t process_heap_allocations();
// Allocations by the calling thread so far.
uint64_t thread_heap_allocations();

}  // namespace mr::io
