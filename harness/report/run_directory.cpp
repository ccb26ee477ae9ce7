// File: run_directory.cpp
#include "harness/report/run_directory.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <map>

#include "harness/report/sha256.h"
#include "harness/report/writer.h"

namespace mr::report {

Expected<void, std::string> write_file_atomically(const std::string& path,
                                                  std::string_view contents) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (f == nullptr) return Unexpected(tmp + ": cannot create: " + std::strerror(errno));
  const bool written = std::fwrite(contents.data(), 1, contents.size(), f) == contents.size();
  const int write_errno = errno;
  const bool flushed = std::fflush(f) == 0 && ::fsync(::fileno(f)) == 0;
  const bool closed = std::fclose(f) == 0;
  if (!written || !flushed || !closed) {
    std::remove(tmp.c_str());
    return Unexpected(tmp + ": write failed: " + std::strerror(written ? errno : write_errno));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string cause = std::strerror(errno);
    std::remove(tmp.c_str());
    return Unexpected(path + ": cannot rename from " + tmp + ": " + cause);
  }
  return {};
}

Expected<void, std::string> write_run_directory(const RunResult& run, const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Unexpected(dir + ": cannot create directory: " + ec.message());
  std::map<std::string, std::string> digests;
  for (const Writer& w : writers()) {
    std::string contents;
    // The writers do not throw by design (JSON is dumped with replacement of invalid UTF-8);
    // this is the boundary that turns a surprise into an error value all the same.
    try {
      contents = w.render(RenderContext{run, digests});
    } catch (const std::exception& e) {
      return Unexpected(std::string(w.file_name) + ": cannot render: " + e.what());
    }
    const std::string path = (std::filesystem::path(dir) / w.file_name).string();
    if (auto ok = write_file_atomically(path, contents); !ok) return ok;
    digests[std::string(w.file_name)] = sha256_hex(contents);
  }
  return {};
}

}  // namespace mr::report
