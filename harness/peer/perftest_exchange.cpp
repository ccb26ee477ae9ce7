#include "harness/peer/perftest_exchange.h"

#include <cstdio>
#include <cstdlib>

#include "harness/peer/hex_fields.h"

namespace mr::peer {
namespace {

constexpr std::string_view kKeys = "perftest keys";

Unexpected<std::string> wrong_size(std::string_view what, size_t got, size_t want) {
  return Unexpected(std::string(what) + ": " + std::to_string(got) + " bytes, expected " +
                    std::to_string(want));
}

}  // namespace

std::string format_perftest_keys(const PerftestKeys& k) {
  char text[kPerftestKeysSize] = {};
  int n = std::snprintf(text, sizeof text,
                        "%04x:%04x:%06x:%06x:%08x:%016llx:", static_cast<unsigned>(k.lid),
                        static_cast<unsigned>(k.out_reads), static_cast<unsigned>(k.qpn & 0xffffff),
                        static_cast<unsigned>(k.psn & 0xffffff), static_cast<unsigned>(k.rkey),
                        static_cast<unsigned long long>(k.vaddr));
  for (const uint8_t b : k.gid.bytes) {
    n += std::snprintf(text + n, sizeof text - static_cast<size_t>(n),
                       "%02x:", static_cast<unsigned>(b));
  }
  std::snprintf(text + n, sizeof text - static_cast<size_t>(n),
                "%08x:", static_cast<unsigned>(k.srqn));
  return {text, sizeof text};  // 107 characters and the NUL
}

Expected<PerftestKeys, std::string> parse_perftest_keys(std::string_view bytes) {
  if (bytes.size() != kPerftestKeysSize) {
    return wrong_size(kKeys, bytes.size(), kPerftestKeysSize);
  }
  const auto f = split_fields(until_nul(bytes));
  // lid, out_reads, qpn, psn, rkey, vaddr, 16 GID bytes, srqn, and "" after the last ':'.
  if (f.size() != 24 || !f[23].empty()) {
    return Unexpected(std::string(kKeys) + ": " + std::to_string(f.size()) +
                      " colon-separated fields, expected 23 each ending in ':' "
                      "(lid:out_reads:qpn:psn:rkey:vaddr:16 GID bytes:srqn:)");
  }
  PerftestKeys k;
  struct Field {
    const char* name;
    size_t digits;
    uint64_t max;
  };
  constexpr Field kHead[] = {{"lid", 4, 0xffff},      {"out_reads", 4, 0xffff},
                             {"qpn", 6, 0xffffff},    {"psn", 6, 0xffffff},
                             {"rkey", 8, 0xffffffff}, {"vaddr", 16, ~uint64_t{0}}};
  uint64_t head[6] = {};
  for (size_t i = 0; i < 6; ++i) {
    auto v = parse_hex_field(kKeys, kHead[i].name, f[i], kHead[i].digits, kHead[i].max);
    if (!v) return Unexpected(v.error());
    head[i] = *v;
  }
  for (size_t i = 0; i < 16; ++i) {
    const std::string name = "gid[" + std::to_string(i) + "]";
    auto v = parse_hex_field(kKeys, name, f[6 + i], 2, 0xff);
    if (!v) return Unexpected(v.error());
    k.gid.bytes[i] = static_cast<uint8_t>(*v);
  }
  auto srqn = parse_hex_field(kKeys, "srqn", f[22], 8, 0xffffffff);
  if (!srqn) return Unexpected(srqn.error());
  k.lid = static_cast<uint16_t>(head[0]);
  k.out_reads = static_cast<uint16_t>(head[1]);
  k.qpn = static_cast<uint32_t>(head[2]);
  k.psn = static_cast<uint32_t>(head[3]);
  k.rkey = static_cast<uint32_t>(head[4]);
  k.vaddr = head[5];
  k.srqn = static_cast<uint32_t>(*srqn);
  return k;
}

std::string format_perftest_version(std::string_view version) {
  std::string out(kPerftestVersionSize, '\0');
  out.replace(0, std::min(version.size(), kPerftestVersionSize - 1),
              version.substr(0, kPerftestVersionSize - 1));
  return out;
}

Expected<std::string, std::string> parse_perftest_version(std::string_view bytes) {
  if (bytes.size() != kPerftestVersionSize) {
    return wrong_size("perftest version", bytes.size(), kPerftestVersionSize);
  }
  const std::string text(until_nul(bytes));
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end == text.c_str()) {
    return Unexpected("perftest version: \"" + text + "\" is not a version number");
  }
  if (v < 5.70) {
    return Unexpected("perftest version: " + text + " is older than 5.70, which perftest refuses");
  }
  return text;
}

std::string format_perftest_int(int32_t value) {
  const auto u = static_cast<uint32_t>(value);
  return {static_cast<char>(u >> 24), static_cast<char>(u >> 16), static_cast<char>(u >> 8),
          static_cast<char>(u)};
}

Expected<int32_t, std::string> parse_perftest_int(std::string_view bytes, std::string_view field) {
  if (bytes.size() != kPerftestIntSize) {
    return wrong_size("perftest " + std::string(field), bytes.size(), kPerftestIntSize);
  }
  uint32_t u = 0;
  for (const char c : bytes) u = (u << 8) | static_cast<uint8_t>(c);
  return static_cast<int32_t>(u);
}

std::string format_perftest_mtu(uint32_t mtu_bytes) {
  int e = 1;  // IBV_MTU_256
  for (uint32_t m = 256; m < mtu_bytes && e < 5; m <<= 1) ++e;
  return {static_cast<char>('0' + e), '\0'};
}

Expected<uint32_t, std::string> parse_perftest_mtu(std::string_view bytes) {
  if (bytes.size() != kPerftestMtuSize) {
    return wrong_size("perftest mtu", bytes.size(), kPerftestMtuSize);
  }
  const std::string text(until_nul(bytes));
  if (text.size() != 1 || text[0] < '1' || text[0] > '5') {
    return Unexpected("perftest mtu: \"" + text + "\" is not an ibv_mtu value 1..5");
  }
  return uint32_t{128} << (text[0] - '0');
}

}  // namespace mr::peer
