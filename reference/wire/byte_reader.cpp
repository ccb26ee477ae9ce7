#include "reference/wire/byte_reader.h"

#include <string>

namespace mr::wire {

Expected<void, ParseError> ByteReader::need(size_t n, std::string_view header) const {
  if (remaining() >= n) return {};
  return Unexpected(ParseError{
      std::string(header), "", offset(),
      "needs " + std::to_string(n) + " bytes, " + std::to_string(remaining()) + " remain"});
}

}  // namespace mr::wire
