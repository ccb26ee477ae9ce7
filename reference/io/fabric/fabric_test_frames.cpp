#include "reference/io/fabric/fabric_test_frames.h"

#include <vector>

#include "reference/wire/frame_builder.h"
#include "reference/wire/opcode.h"

namespace mr::io::fabric {

Frame test_frame(const FabricConfig& config, const TestFrameSpec& spec) {
  const FabricAddressing& plan = config.addressing;
  wire::RocePacket p;
  p.eth.src = plan.mac(spec.plane, spec.src);
  p.eth.dst = plan.mac(spec.plane, spec.dst);
  const uint8_t tc = static_cast<uint8_t>(spec.dscp << 2 | (spec.ecn & 3));
  const size_t headers = 14 + (spec.ipv6 ? 40 : 20) + 8 + 12 + 4;  // .. UDP BTH .. ICRC
  if (spec.ipv6) {
    wire::Ipv6 ip;
    ip.tc = tc;
    ip.fl = spec.flow_label;
    ip.src = plan.ipv6(spec.plane, spec.src);
    ip.dst = plan.ipv6(spec.plane, spec.dst);
    p.ip = ip;
    p.eth.type = wire::kEtherTypeIpv6;
  } else {
    wire::Ipv4 ip;
    ip.tos = tc;
    ip.flags = 2;
    ip.src = plan.ipv4(spec.plane, spec.src);
    ip.dst = plan.ipv4(spec.plane, spec.dst);
    p.ip = ip;
  }
  p.udp.sport = spec.sport;
  p.bth.opcode = wire::kOpRcSendOnly;
  p.bth.psn = spec.psn;
  // Payloads a multiple of 4 keep the pad count 0, so the frame is frame_bytes rounded
  // down to one of 2 mod 4: the RoCEv2 headers are 58 (IPv4) or 78 (IPv6) bytes.
  const size_t payload = spec.frame_bytes > headers ? (spec.frame_bytes - headers) & ~size_t{3} : 0;
  const std::vector<uint8_t> bytes(payload, 0x5a);
  p.payload = bytes;
  return Frame{wire::build_frame(p), 0};
}

uint64_t run_to_quiet(Fabric& fabric, VirtualClock& clock, uint64_t limit_ns) {
  const uint64_t before = fabric.events_run();
  // Bounded by the limit and by the events, which end once no frame is left in flight.
  while (auto t = fabric.next_event_ns()) {
    if (*t > limit_ns) break;
    if (*t > clock.now_ns()) clock.set(*t);
    fabric.run_until(clock.now_ns());
  }
  if (limit_ns != UINT64_MAX && clock.now_ns() < limit_ns) {
    clock.set(limit_ns);
    fabric.run_until(limit_ns);
  }
  return fabric.events_run() - before;
}

}  // namespace mr::io::fabric
