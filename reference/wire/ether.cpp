#include "reference/wire/ether.h"

namespace mr::wire {

void Ether::read(ByteReader& r) {
  auto d = r.take(6);
  auto s = r.take(6);
  for (size_t i = 0; i < 6; ++i) {
    dst.bytes[i] = d[i];
    src.bytes[i] = s[i];
  }
  type = r.u16();
}

void Ether::write(ByteWriter& w) const {
  w.bytes(dst.bytes);
  w.bytes(src.bytes);
  w.u16(type);
}

}  // namespace mr::wire
