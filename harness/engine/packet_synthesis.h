// File: packet_synthesis.h
//
// Script packet expressions to wire packets and back: builds the frame a `<` line injects
// (connection defaults first, then every field the script gives; ICRC and lengths computed
// unless given), and compares a `>` line with what the DUT sent, field by field.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "harness/engine/symbols.h"
#include "harness/script/ast.h"
#include "reference/error/expected.h"
#include "reference/wire/frame_decoder.h"

namespace mr::engine {

class SecureSession;  // secure_session.h

// What the connection fills in when a script leaves it out.
struct ConnectionDefaults {
  wire::MacAddress tester_mac;
  wire::MacAddress dut_mac;
  wire::Ipv4Address tester_ip;
  wire::Ipv4Address dut_ip;
  uint16_t udp_sport = 0xc000;
  uint32_t dut_qpn = 0;     // DestQP of injected packets
  uint32_t tester_qpn = 0;  // DestQP the DUT's packets must carry
  uint16_t pkey = 0xffff;
  // A UD connection: the DUT QP's Q_Key, which an injected UD packet's DETH carries unless
  // the script writes its own (the DETH's source QP is then tester_qpn).
  std::optional<uint32_t> qkey;
  // An IPv6 connection (create_qp ipv6=1): packets default to IPv6 between these.
  std::optional<wire::Ipv6Address> tester_ip6;
  std::optional<wire::Ipv6Address> dut_ip6;
  // A VLAN connection (create_qp vlan=VID pcp=N): packets default to one 802.1Q tag.
  std::optional<uint16_t> vlan;
  uint8_t pcp = 0;
  // An extension-mode connection (create_qp ext=1, spec section 18): injected packets
  // default to TVer 1, and every packet the DUT sends but a CNP must carry TVer 1 (MR-EX-04).
  bool ext = false;
  // A secure connection (create_qp secure=1, section 19.4): injected packets default to
  // SX = 1 with a SECH (epoch 1) and a tag, which the session seals; every Ext packet of the
  // DUT must carry SX = 1, and every Ext packet of any other connection SX = 0 (MR-SE-12).
  std::shared_ptr<SecureSession> secure;

  bool ipv6() const { return tester_ip6.has_value() && dut_ip6.has_value(); }
};

struct SynthesisError {
  script::Position pos;
  std::string message;
};

// The frame headers of the connection (Ether, the VLAN tag if any, IPv4 or IPv6, UDP, BTH
// P_Key and DestQP) with nothing else set: what every injected packet starts from.
wire::RocePacket connection_packet(const ConnectionDefaults& connection);

Expected<std::vector<uint8_t>, SynthesisError> synthesize(const script::PacketExpr& packet,
                                                          const ConnectionDefaults& connection,
                                                          const SymbolTable& symbols);

struct FieldMismatch {
  script::Position pos;
  std::string field;     // "BTH.psn"
  std::string expected;  // the script's expression beside its value: "P+1 = 0x372fea (3616746)"
  std::string actual;
  std::string detail;  // more on how they differ, where a field has more to say (a payload)
};

// Compares: each layer the script names must be present, each field it gives must match
// (`*` matches anything; AETH.syndrome=ACK matches any ACK syndrome, RNR_NAK any RNR NAK),
// and implicitly the packet must be addressed to the tester and carry a valid ICRC.
Expected<std::vector<FieldMismatch>, SynthesisError> match(const script::PacketExpr& expected,
                                                           const wire::DecodedRoce& actual,
                                                           const ConnectionDefaults& connection,
                                                           const SymbolTable& symbols);

// "0x000457 (1111)": how values appear in failure messages.
std::string format_value(uint64_t v, unsigned bits);

}  // namespace mr::engine
