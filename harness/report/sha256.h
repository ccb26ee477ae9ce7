// File: sha256.h
//
// SHA-256 (FIPS 180-4) for the manifest: the digest of every input and output of a run.
// No crypto library is linked by the project (libssl is only present on the build host as
// a dependency of libtins-dev), so this is a small implementation checked against the FIPS
// 180-4 / NIST CAVP example vectors in sha256_test.cpp.
//
//   Sha256 h;
//   h.update(bytes);
//   std::string hex = h.hex_digest();   // 64 lower-case hex digits
//   auto file = sha256_file("testcases/base/psn/RC-PSN-004.mrt");
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "reference/error/expected.h"

namespace mr::report {

class Sha256 {
 public:
  Sha256();
  void update(std::string_view bytes);
  // Finishes the hash; the object must not be updated afterwards.
  std::array<uint8_t, 32> digest();
  std::string hex_digest();

 private:
  void compress(const uint8_t* block);

  std::array<uint32_t, 8> h_;
  std::array<uint8_t, 64> buffer_{};
  size_t buffered_ = 0;
  uint64_t total_bytes_ = 0;
};

std::string sha256_hex(std::string_view bytes);

// The SHA-256 of a file's contents as 64 lower-case hex digits, or why it could not be read.
Expected<std::string, std::string> sha256_file(const std::string& path);

}  // namespace mr::report
