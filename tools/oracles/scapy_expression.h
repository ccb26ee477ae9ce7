// File: scapy_expression.h
//
// One packet line of a test case as the Scapy expression that must give the same bytes as
// our builder, and those bytes. The script's expression is kept (symbols bound to numbers,
// opcode and syndrome names left for Scapy to bind); what the engine fills where the script
// is silent and Scapy would fill differently is written out: addresses, IPv4 DF and ID 0,
// the UDP source port and checksum 0, BTH.dqpn, the pad count and the pad bytes.
//
// A `>` line becomes the packet the engine would accept with every unspecified field at
// what the engine fills: addressed DUT -> tester, `*` fields left out, Raw(len=N) as N zero
// bytes.
//
// Usage:
//   auto c = scapy_case(line, symbols, connection);
//   if (c) print(c->scapy, hex(c->bytes));
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/engine/packet_synthesis.h"
#include "harness/engine/symbols.h"
#include "harness/script/ast.h"
#include "reference/error/expected.h"
#include "reference/wire/address.h"

namespace mr::oracles {

// The connection of a test case's first QP, as the engine would set it up at create_qp.
struct Connection {
  engine::ConnectionDefaults base;  // addresses (IPv4), MACs, QPNs, UDP source port, P_Key
  std::optional<uint32_t> qkey;     // a UD connection: the DUT QP's Q_Key
  uint32_t tester_qkey = 0;         // and the tester's (what the DUT's DETH carries)
  std::optional<wire::Ipv6Address> tester_ip6;  // an IPv6 connection (create_qp ipv6=1)
  std::optional<wire::Ipv6Address> dut_ip6;
  std::optional<uint16_t> vlan;  // a VLAN connection (create_qp vlan=VID pcp=N)
  uint8_t pcp = 0;
  bool ext = false;  // an extension-mode connection (create_qp ext=1): TVer 1 by default

  bool ipv6() const { return tester_ip6.has_value() && dut_ip6.has_value(); }
  // The same connection seen from the DUT: what the engine expects on a `>` line.
  Connection reversed() const;
};

struct ScapyCase {
  std::string scapy;                // Ether(...)/IP(...)/UDP(...)/BTH(...)/...
  std::vector<uint8_t> bytes;       // what our builder (engine::synthesize) gives
  std::vector<std::string> layers;  // the layer names of `scapy`, in order
};

// `line` is consumed: a `>` line is rewritten in place (wildcards out, Raw(len=N) in).
// `connection` is the tester -> DUT connection; a `>` line uses it reversed.
Expected<ScapyCase, engine::SynthesisError> scapy_case(script::PacketLine& line,
                                                       const engine::SymbolTable& symbols,
                                                       const Connection& connection);

// A Python expression for `e`: numbers in hex, symbols bound, names kept, bytes literals.
Expected<std::string, std::string> python_text(const script::Expr& e,
                                               const engine::SymbolTable& symbols,
                                               bool as_string = false);

}  // namespace mr::oracles
