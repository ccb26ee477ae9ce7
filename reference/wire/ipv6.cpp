#include "reference/wire/ipv6.h"

namespace mr::wire {

void Ipv6::read(ByteReader& r) {
  const uint32_t w0 = r.u32();
  version = w0 >> 28;
  tc = w0 >> 20;
  fl = w0;
  plen = r.u16();
  nh = r.u8();
  hlim = r.u8();
  r.copy_into(src.bytes);
  r.copy_into(dst.bytes);
}

void Ipv6::write(ByteWriter& w) const {
  w.u32(uint32_t{version} << 28 | uint32_t{tc} << 20 | fl);
  w.u16(plen);
  w.u8(nh);
  w.u8(hlim);
  w.bytes(src.bytes);
  w.bytes(dst.bytes);
}

}  // namespace mr::wire
