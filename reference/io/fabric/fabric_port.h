// File: fabric_port.h
//
// An endpoint's port on one plane of the fabric, as a Link: what a reference device (or
// the tester, or a DUT adapter) sends and receives through. send_burst accepts frames
// while the port's transmit queue has room (a full queue refuses the rest, as a NIC's
// ring does, so nothing is lost that the sender did not see refused); receive_burst
// returns the frames that have arrived by the clock's now, stamped with their arrival.
// In virtual time a wait must not sleep, so the timeout is ignored.
//
// A NIC does not queue its acknowledgements behind the requests it has already handed to
// its port: its transmit arbiter serves its requester and its responder in turn. A sender
// that knows a frame comes from its responder (a response, ACK or NAK, CNP, CREDIT) says so
// (TransmitClass::kResponse): the port keeps such frames in a FIFO of their own and sends
// from the two alternately, so an ACK waits behind at most one request, and each side's
// frames keep their order (an ACK never overtakes a READ response of its QP). A plain
// send_burst is a request.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "reference/io/link.h"

namespace mr::io::fabric {

class Fabric;

enum class TransmitClass : uint8_t { kRequest, kResponse };

class FabricPort final : public Link {
 public:
  FabricPort(Fabric& fabric, uint32_t plane, uint32_t endpoint)
      : fabric_(fabric), plane_(plane), endpoint_(endpoint) {}

  size_t send_burst(std::span<const Frame> frames) override;
  size_t send_burst(std::span<const Frame> frames, TransmitClass transmit_class);
  size_t receive_burst(std::span<Frame> out, uint64_t timeout_ns) override;
  std::string name() const override;

  uint32_t plane() const { return plane_; }
  uint32_t endpoint() const { return endpoint_; }
  // False while the port's cable is down (a flap) or black-holed: what a device reads as
  // its plane port's operational state (spec 25.1).
  bool link_up() const;

 private:
  Fabric& fabric_;
  uint32_t plane_;
  uint32_t endpoint_;
};

}  // namespace mr::io::fabric
