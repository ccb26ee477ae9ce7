#include "reference/wire/byte_reader.h"

#include <string>

namespace mr::wire {

Unexpected<ParseError> ByteReader::short_of(size_t n, std::string_view header) const {
  return Unexpected(ParseError{
      std::string(header), "", offset(),
      "needs " + std::to_string(n) + " bytes, " + std::to_string(remaining()) + " remain"});
}

}  // namespace mr::wire
