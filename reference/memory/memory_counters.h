// File: memory_counters.h
//
// Counters of the memory model, for the DUT report (`counters` in the DUT control protocol)
// and for tests that check a check was made and why it failed.
#pragma once

#include <array>
#include <cstdint>

#include "reference/memory/access.h"

namespace mr::memory {

struct MemoryCounters {
  uint64_t pds_allocated = 0;
  uint64_t pds_live = 0;
  uint64_t mr_registrations = 0;
  uint64_t mr_deregistrations = 0;
  uint64_t mrs_live = 0;
  uint64_t mr_bytes_live = 0;
  uint64_t mws_allocated = 0;
  uint64_t mws_live = 0;
  uint64_t mw_binds = 0;
  uint64_t invalidations = 0;  // successful, remote and local, of MRs and MWs
  uint64_t remote_checks = 0;  // resolve_remote calls with a non-zero length
  uint64_t local_checks = 0;   // resolve_local calls with a non-zero length
  std::array<uint64_t, kAccessErrorCount> remote_failures{};  // indexed by AccessError
  std::array<uint64_t, kAccessErrorCount> local_failures{};   // indexed by AccessError

  uint64_t remote_failed(AccessError e) const { return remote_failures[static_cast<int>(e)]; }
  uint64_t local_failed(AccessError e) const { return local_failures[static_cast<int>(e)]; }
};

}  // namespace mr::memory
