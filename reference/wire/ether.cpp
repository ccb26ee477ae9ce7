#include "reference/wire/ether.h"

namespace mr::wire {

void Ether::read(ByteReader& r) {
  r.copy_into(dst.bytes);
  r.copy_into(src.bytes);
  type = r.u16();
}

void Ether::write(ByteWriter& w) const {
  w.bytes(dst.bytes);
  w.bytes(src.bytes);
  w.u16(type);
}

}  // namespace mr::wire
