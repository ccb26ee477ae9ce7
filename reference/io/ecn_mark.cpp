#include "reference/io/ecn_mark.h"

#include "reference/io/internet_checksum.h"

namespace mr::io {

bool mark_ecn_ce(std::vector<uint8_t>& frame) {
  size_t l3 = 14;
  if (frame.size() < l3) return false;
  uint16_t ethertype = static_cast<uint16_t>(frame[12] << 8 | frame[13]);
  if (ethertype == 0x8100 && frame.size() >= 18) {
    ethertype = static_cast<uint16_t>(frame[16] << 8 | frame[17]);
    l3 = 18;
  }
  if (ethertype == 0x0800 && frame.size() >= l3 + 20) {
    const size_t ihl = static_cast<size_t>(frame[l3] & 0x0f) * 4;
    if (ihl < 20 || frame.size() < l3 + ihl) return false;
    frame[l3 + 1] |= 0x03;
    frame[l3 + 10] = 0;
    frame[l3 + 11] = 0;
    const uint16_t sum = io::internet_checksum(std::span(frame).subspan(l3, ihl));
    frame[l3 + 10] = static_cast<uint8_t>(sum >> 8);
    frame[l3 + 11] = static_cast<uint8_t>(sum);
    return true;
  }
  if (ethertype == 0x86dd && frame.size() >= l3 + 40) {
    frame[l3 + 1] |= 0x30;  // the ECN bits are the low two of the traffic class
    return true;
  }
  return false;
}

}  // namespace mr::io
