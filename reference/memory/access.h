// File: access.h
//
// The vocabulary of memory protection: access rights of a memory region or window, and the
// reasons a protection check fails.
//
// Access values are those of ibv_access_flags where verbs has the flag, so the verbs agent
// backend can pass them through unchanged:
//
//   uint32_t access = kLocalWrite | kRemoteWrite;
//   if (auto bad = check_mr_access(access)) { ... *bad says why ... }
//   if (!grants(access, kRemoteRead)) { ... NAK 0x62 (MR-MP-04) ... }
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace mr::memory {

enum Access : uint32_t {
  kLocalWrite = 1,    // IBV_ACCESS_LOCAL_WRITE
  kRemoteWrite = 2,   // IBV_ACCESS_REMOTE_WRITE
  kRemoteRead = 4,    // IBV_ACCESS_REMOTE_READ
  kRemoteAtomic = 8,  // IBV_ACCESS_REMOTE_ATOMIC
  kMwBind = 16,       // IBV_ACCESS_MW_BIND
  kZeroBased = 32,    // IBV_ACCESS_ZERO_BASED
};

// Every bit defined above; any other bit in an access word is an error.
inline constexpr uint32_t kAllAccess =
    kLocalWrite | kRemoteWrite | kRemoteRead | kRemoteAtomic | kMwBind | kZeroBased;

// The rights a remote peer can exercise through an R_Key.
inline constexpr uint32_t kRemoteAccess = kRemoteWrite | kRemoteRead | kRemoteAtomic;

// Why a key, bounds or access check failed. On the wire every one of these becomes NAK 0x62
// (remote access error, section 11 of the spec) except kMisaligned, which is NAK 0x61
// (MR-AT-03); the distinction is kept for counters and diagnostics.
enum class AccessError {
  kInvalidKey,    // no live region or window has this key (MR-MP-01)
  kWrongPd,       // the key belongs to another protection domain (MR-MP-03)
  kNotPermitted,  // the region or window lacks the access the operation needs (MR-MP-04)
  kOutOfRange,    // [va, va + length) is not inside the region or window (MR-MP-02)
  kInvalidated,   // the key was invalidated (MR-MP-09, MR-MP-11)
  kMisaligned,    // an atomic target that is not 8-byte aligned (MR-AT-03)
};

inline constexpr std::size_t kAccessErrorCount = 6;

std::string_view to_string(AccessError error);

// True when `access` includes every right in `required`.
constexpr bool grants(uint32_t access, uint32_t required) {
  return (access & required) == required;
}

// Why `access` is not a valid access word for reg_mr, or nullopt when it is. As in verbs
// (ibv_reg_mr returns EINVAL), remote write or remote atomic without local write is refused:
// a peer could otherwise change memory its owner declared read-only.
std::optional<std::string> check_mr_access(uint32_t access);

}  // namespace mr::memory
