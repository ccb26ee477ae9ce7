#include "reference/wire/bth.h"

namespace mr::wire {

void Bth::read(ByteReader& r) {
  opcode = r.u8();
  const uint8_t b1 = r.u8();
  solicited = b1 >> 7;
  migreq = b1 >> 6;
  padcount = b1 >> 4;
  version = b1;
  pkey = r.u16();
  const uint8_t b4 = r.u8();
  fecn = b4 >> 7;
  becn = b4 >> 6;
  resv6 = b4;
  dqpn = r.u24();
  const uint8_t b8 = r.u8();
  ackreq = b8 >> 7;
  resv7 = b8;
  psn = r.u24();
}

void Bth::write(ByteWriter& w) const {
  w.u8(opcode);
  w.u8(static_cast<uint8_t>(solicited << 7 | migreq << 6 | padcount << 4 | version));
  w.u16(pkey);
  w.u8(static_cast<uint8_t>(fecn << 7 | becn << 6 | resv6));
  w.u24(dqpn);
  w.u8(static_cast<uint8_t>(ackreq << 7 | resv7));
  w.u24(psn);
}

}  // namespace mr::wire
