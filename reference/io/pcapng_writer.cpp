#include "reference/io/pcapng_writer.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

namespace mr::io {
namespace {

// Host byte order is allowed by pcapng: readers use the section's byte-order magic.
void put32(std::vector<uint8_t>& b, uint32_t v) {
  const auto* p = reinterpret_cast<const uint8_t*>(&v);
  b.insert(b.end(), p, p + 4);
}
void put16(std::vector<uint8_t>& b, uint16_t v) {
  const auto* p = reinterpret_cast<const uint8_t*>(&v);
  b.insert(b.end(), p, p + 2);
}
void put_option(std::vector<uint8_t>& b, uint16_t code, std::span<const uint8_t> value) {
  put16(b, code);
  put16(b, static_cast<uint16_t>(value.size()));
  b.insert(b.end(), value.begin(), value.end());
  b.resize(b.size() + ((4 - value.size() % 4) % 4), 0);
}
std::span<const uint8_t> as_bytes(std::string_view s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}
// Patches the leading length and appends the trailing one.
void close_block(std::vector<uint8_t>& b) {
  const auto len = static_cast<uint32_t>(b.size() + 4);
  std::memcpy(b.data() + 4, &len, 4);
  put32(b, len);
}

constexpr uint16_t kOptComment = 1;
constexpr uint16_t kIfName = 2;
constexpr uint16_t kShbUserAppl = 4;
constexpr uint16_t kIfTsresol = 9;
constexpr uint32_t kMaxComment = 0xfff0;

}  // namespace

Expected<PcapngWriter, std::string> PcapngWriter::create(const std::string& path,
                                                         std::string_view application,
                                                         std::span<const std::string> interfaces) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return Unexpected(path + ": " + std::strerror(errno));
  PcapngWriter w(path, f);
  std::vector<uint8_t> b;
  put32(b, 0x0a0d0d0a);
  put32(b, 0);
  put32(b, 0x1a2b3c4d);
  put16(b, 1);
  put16(b, 0);
  put32(b, 0xffffffff);  // section length unknown
  put32(b, 0xffffffff);
  put_option(b, kShbUserAppl, as_bytes(application));
  put32(b, 0);  // opt_endofopt
  close_block(b);
  if (auto ok = w.put(b); !ok) return Unexpected(ok.error());
  const std::string unnamed;
  for (size_t i = 0; i < std::max<size_t>(interfaces.size(), 1); ++i) {
    const std::string& name = interfaces.empty() ? unnamed : interfaces[i];
    b.clear();
    put32(b, 1);  // interface description
    put32(b, 0);
    put16(b, 1);  // LINKTYPE_ETHERNET
    put16(b, 0);
    put32(b, 0);  // no snap length limit
    if (!name.empty()) put_option(b, kIfName, as_bytes(name));
    const uint8_t nanoseconds = 9;
    put_option(b, kIfTsresol, std::span(&nanoseconds, 1));
    put32(b, 0);
    close_block(b);
    if (auto ok = w.put(b); !ok) return Unexpected(ok.error());
  }
  w.interfaces_ = static_cast<uint32_t>(std::max<size_t>(interfaces.size(), 1));
  return w;
}

Expected<void, std::string> PcapngWriter::put(std::span<const uint8_t> bytes) {
  if (!file_) return Unexpected(path_ + ": already closed");
  if (std::fwrite(bytes.data(), 1, bytes.size(), file_.get()) != bytes.size()) {
    return Unexpected(path_ + ": write: " + std::strerror(errno));
  }
  return {};
}

Expected<void, std::string> PcapngWriter::write(std::span<const uint8_t> frame,
                                                uint64_t timestamp_ns, std::string_view comment,
                                                uint32_t interface) {
  return write_block(frame, timestamp_ns, std::span(&comment, 1), interface, 0);
}

Expected<void, std::string> PcapngWriter::write(std::span<const uint8_t> frame,
                                                uint64_t timestamp_ns,
                                                std::span<const std::string> comments,
                                                uint32_t interface, size_t original_length) {
  std::vector<std::string_view> views(comments.begin(), comments.end());
  return write_block(frame, timestamp_ns, views, interface, original_length);
}

Expected<void, std::string> PcapngWriter::write_block(std::span<const uint8_t> frame,
                                                      uint64_t timestamp_ns,
                                                      std::span<const std::string_view> comments,
                                                      uint32_t interface, size_t original_length) {
  if (interface >= interfaces_) {
    return Unexpected(path_ + ": interface " + std::to_string(interface) + " of " +
                      std::to_string(interfaces_));
  }
  size_t comment_bytes = 0;
  for (const auto& c : comments) comment_bytes += c.size() + 8;
  std::vector<uint8_t> b;
  b.reserve(frame.size() + comment_bytes + 48);
  put32(b, 6);  // enhanced packet block
  put32(b, 0);
  put32(b, interface);
  put32(b, static_cast<uint32_t>(timestamp_ns >> 32));
  put32(b, static_cast<uint32_t>(timestamp_ns));
  put32(b, static_cast<uint32_t>(frame.size()));
  put32(b, static_cast<uint32_t>(std::max(frame.size(), original_length)));
  b.insert(b.end(), frame.begin(), frame.end());
  b.resize(b.size() + ((4 - frame.size() % 4) % 4), 0);
  bool options = false;
  for (const auto& c : comments) {
    if (c.empty()) continue;
    put_option(b, kOptComment, as_bytes(c.substr(0, kMaxComment)));
    options = true;
  }
  if (options) put32(b, 0);  // opt_endofopt
  close_block(b);
  return put(b);
}

Expected<void, std::string> PcapngWriter::close() {
  if (!file_) return {};
  std::FILE* f = file_.release();
  if (std::fclose(f) != 0) return Unexpected(path_ + ": close: " + std::strerror(errno));
  return {};
}

}  // namespace mr::io
