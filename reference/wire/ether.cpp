#include "reference/wire/ether.h"

namespace mr::wire {

void Ether::read(ByteReader& r) {
  r.copy_into(dst.bytes);
  r.copy_into(src.bytes);
  type = r.u16();
}

void Ether::write(ByteWriter& w) const {
  HeaderBytes<kSize> b;  // composed locally: every frame has one (HeaderBytes says why)
  b.bytes(dst.bytes);
  b.bytes(src.bytes);
  b.u16(type);
  w.bytes(b.written());
}

}  // namespace mr::wire
