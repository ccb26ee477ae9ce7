// File: header_parse.h
//
// The one bounds check every fixed-size header goes through: a header type H provides
// kName, kSize and an unchecked `read(ByteReader&)`; `parse_header<H>` refuses to call it
// unless kSize bytes remain, so no header parser can read out of bounds.
#pragma once

#include "reference/error/expected.h"
#include "reference/wire/byte_reader.h"
#include "reference/wire/parse_error.h"

namespace mr::wire {

template <class H>
Expected<H, ParseError> parse_header(ByteReader& r) {
  if (auto ok = r.need(H::kSize, H::kName); !ok) return Unexpected(ok.error());
  H h;
  h.read(r);
  return h;
}

}  // namespace mr::wire
