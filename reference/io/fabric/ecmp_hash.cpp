#include "reference/io/fabric/ecmp_hash.h"

#include <cstring>

#include "reference/io/fabric/seeded_random.h"

namespace mr::io::fabric {

FlowKey flow_key(const FrameHeaders& h, Ipv6EcmpKey ipv6_key) {
  FlowKey key;
  const uint32_t ports = uint32_t{h.sport} << 16 | h.dport;
  if (h.ipv6) {
    key.src = h.src_v6.bytes;
    key.dst = h.dst_v6.bytes;
    key.entropy = ipv6_key == Ipv6EcmpKey::kFlowLabel ? h.flow_label : ports;
  } else {
    std::memcpy(key.src.data(), h.src_v4.bytes.data(), 4);
    std::memcpy(key.dst.data(), h.dst_v4.bytes.data(), 4);
    key.entropy = ports;
  }
  return key;
}

uint64_t ecmp_hash(const FlowKey& key, uint64_t seed) {
  uint64_t words[4];
  std::memcpy(words, key.src.data(), 16);
  std::memcpy(words + 2, key.dst.data(), 16);
  uint64_t h = mix64(seed);
  for (uint64_t w : words) h = mix64(h ^ w);
  return mix64(h ^ key.entropy);
}

}  // namespace mr::io::fabric
