#include "reference/wire/bth.h"

#include <array>

namespace mr::wire {

void Bth::read(ByteReader& r) {
  // From a local copy: a byte-wide store into a field may alias anything, so reading through
  // the reader made the compiler reload its cursor after every field.
  std::array<uint8_t, kSize> b;
  r.copy_into(b);
  opcode = b[0];
  solicited = b[1] >> 7;
  migreq = b[1] >> 6;
  padcount = b[1] >> 4;
  version = b[1];
  pkey = uint32_t{b[2]} << 8 | b[3];
  fecn = b[4] >> 7;
  becn = b[4] >> 6;
  resv6 = b[4];
  dqpn = uint32_t{b[5]} << 16 | uint32_t{b[6]} << 8 | b[7];
  ackreq = b[8] >> 7;
  resv7 = b[8];
  psn = uint32_t{b[9]} << 16 | uint32_t{b[10]} << 8 | b[11];
}

void Bth::write(ByteWriter& w) const {
  HeaderBytes<kBthSize> b;  // composed locally: every frame has one (HeaderBytes says why)
  b.u8(opcode);
  b.u8(static_cast<uint8_t>(solicited << 7 | migreq << 6 | padcount << 4 | version));
  b.u16(pkey);
  b.u8(static_cast<uint8_t>(fecn << 7 | becn << 6 | resv6));
  b.u24(dqpn);
  b.u8(static_cast<uint8_t>(ackreq << 7 | resv7));
  b.u24(psn);
  w.bytes(b.written());
}

}  // namespace mr::wire
