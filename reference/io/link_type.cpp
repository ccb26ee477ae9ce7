#include "reference/io/link_type.h"

#include <array>
#include <utility>

namespace mr::io {
namespace {

// The link types a capture of another kind of interface most likely has (tcpdump.org's
// linktypes list). USER0..USER15 (147..162) are named by their number below.
constexpr std::array<std::pair<uint32_t, std::string_view>, 17> kNames = {{
    {0, "NULL"},
    {1, "ETHERNET"},
    {9, "PPP"},
    {101, "RAW"},
    {105, "IEEE802_11"},
    {108, "LOOP"},
    {113, "LINUX_SLL"},
    {127, "IEEE802_11_RADIOTAP"},
    {189, "USB_LINUX"},
    {197, "ERF"},
    {220, "USB_LINUX_MMAPPED"},
    {228, "IPV4"},
    {229, "IPV6"},
    {239, "NFLOG"},
    {253, "NETLINK"},
    {274, "NORDIC_BLE"},
    {276, "LINUX_SLL2"},
}};

constexpr uint32_t kLinkTypeUser0 = 147;
constexpr uint32_t kLinkTypeUser15 = 162;

}  // namespace

std::optional<wire::Framing> framing_of(uint32_t link_type) {
  switch (link_type) {
    case kLinkTypeEthernet:
      return wire::Framing::kEthernet;
    case kLinkTypeLinuxSll:
      return wire::Framing::kLinuxSll;
    case kLinkTypeLinuxSll2:
      return wire::Framing::kLinuxSll2;
    default:
      return std::nullopt;
  }
}

std::string link_type_name(uint32_t link_type) {
  if (link_type >= kLinkTypeUser0 && link_type <= kLinkTypeUser15) {
    return "LINKTYPE_USER" + std::to_string(link_type - kLinkTypeUser0);
  }
  for (const auto& [number, name] : kNames) {
    if (number == link_type) return "LINKTYPE_" + std::string(name);
  }
  return "an unassigned link type";
}

std::optional<std::string> refused_link_type(uint32_t link_type,
                                             std::optional<uint32_t> interface) {
  if (framing_of(link_type)) return std::nullopt;
  return "link type " + std::to_string(link_type) + " (" + link_type_name(link_type) + ")" +
         (interface ? " of interface " + std::to_string(*interface) : std::string()) +
         " is not one metaroce reads: it reads Ethernet (1) and Linux cooked captures (113 "
         "LINKTYPE_LINUX_SLL, 276 LINKTYPE_LINUX_SLL2)";
}

Expected<wire::Framing, CaptureError> framing_of(const std::string& file,
                                                 const CapturedFrame& frame) {
  if (const auto framing = framing_of(frame.link_type)) return *framing;
  return Unexpected(CaptureError{file, frame.file_offset,
                                 *refused_link_type(frame.link_type, frame.interface),
                                 CaptureError::Cause::kLinkType});
}

Expected<CaptureReader, CaptureError> open_for_decoding(const std::string& path) {
  return CaptureReader::open(path, refused_link_type);
}

}  // namespace mr::io
