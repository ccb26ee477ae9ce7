#include "reference/wire/mxcap.h"

namespace mr::wire {

Expected<Mxcap, ParseError> Mxcap::parse(std::span<const uint8_t> bytes) {
  ByteReader r(bytes);
  if (auto ok = r.need(kSize, kName); !ok) return Unexpected(ok.error());
  Mxcap m;
  m.read(r);
  return m;
}

std::vector<uint8_t> Mxcap::bytes() const {
  std::vector<uint8_t> out;
  out.reserve(kSize);
  ByteWriter w(out);
  write(w);
  return out;
}

bool Mxcap::enables_ext() const {
  constexpr uint8_t kCore = kMxcapSack | kMxcapOoo;
  return magic == kMagic && version == 1 && (features & kCore) == kCore;
}

void Mxcap::read(ByteReader& r) {
  r.copy_into(magic.bytes);
  version = r.u8();
  features = r.u8();
  ev_mode = r.u8();
  mpr = r.u8();
  planes = r.u8();
  features2 = r.u8();
  ev_count = r.u16();
  reserved = r.u32();
}

void Mxcap::write(ByteWriter& w) const {
  w.bytes(magic.bytes);
  w.u8(version);
  w.u8(features);
  w.u8(ev_mode);
  w.u8(mpr);
  w.u8(planes);
  w.u8(features2);
  w.u16(ev_count);
  w.u32(reserved);
}

}  // namespace mr::wire
