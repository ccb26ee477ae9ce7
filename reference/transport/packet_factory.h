// File: packet_factory.h
//
// Builds the frames a QP sends: the address vector becomes Ether / [Dot1Q] / IP / UDP, the
// QP's attributes fill the BTH (P_Key, DestQP), and the codec computes lengths, pad and
// ICRC. What it decides (framing_decisions.h) is fixed when the device is made.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "reference/transport/ext/secure_transmitter.h"
#include "reference/transport/framing_decisions.h"
#include "reference/transport/queue_pair.h"
#include "reference/wire/frame_builder.h"
#include "reference/wire/roce_packet.h"

namespace mr::transport {

class PacketFactory {
 public:
  explicit PacketFactory(const FramingDecisions& decide, bool secure_sets_sx = true)
      : decide_(decide), secure_sets_sx_(secure_sets_sx) {}

  // A packet to the QP's peer with L2..UDP and the BTH's P_Key and DestQP filled in.
  wire::RocePacket start(const QueuePair& qp, uint8_t opcode, uint32_t psn) const;
  // The same for an explicit destination: a UD work request's address handle and QPN.
  wire::RocePacket start(const AddressVector& av, uint16_t pkey, uint32_t dest_qpn, uint8_t opcode,
                         uint32_t psn) const;
  // Serializes with lengths, pad and ICRC computed.
  std::vector<uint8_t> finish(const wire::RocePacket& p);
  // The same into `out` (a reused buffer), the payload from `pieces` when given: the data
  // path's form, one copy of each payload byte and no allocation once the buffer is warm.
  // With `secure` (a QP with SECURE, section 19.4) the packet gets SX, a SECH with the next
  // PN, and is sealed in place; false when the sender may not send it (MR-SE-08).
  bool finish_into(const wire::RocePacket& p, std::vector<uint8_t>& out,
                   wire::PayloadPieces pieces = {}, ext::SecureTransmitter* secure = nullptr);

 private:
  FramingDecisions decide_;     // by value: built once, read per packet
  bool secure_sets_sx_ = true;  // MR-SE-12; false only for the ext-secure-sx-clear mutant
  uint16_t ip_id_ = 0;
  uint16_t sport_jitter_ = 0;
};

}  // namespace mr::transport
