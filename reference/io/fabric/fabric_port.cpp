#include "reference/io/fabric/fabric_port.h"

#include "reference/io/fabric/fabric.h"

namespace mr::io::fabric {

size_t FabricPort::send_burst(std::span<const Frame> frames) {
  return fabric_.send(plane_, endpoint_, frames);
}

size_t FabricPort::send_burst(std::span<const Frame> frames, TransmitClass transmit_class) {
  return fabric_.send(plane_, endpoint_, frames, transmit_class);
}

size_t FabricPort::receive_burst(std::span<Frame> out, uint64_t /*timeout_ns*/) {
  return fabric_.receive(plane_, endpoint_, out);
}

std::string FabricPort::name() const {
  return "fabric:plane" + std::to_string(plane_) + "/endpoint" + std::to_string(endpoint_);
}

bool FabricPort::link_up() const { return fabric_.link_up(plane_, endpoint_); }

}  // namespace mr::io::fabric
