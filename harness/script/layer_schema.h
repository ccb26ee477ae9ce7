// File: layer_schema.h
//
// The layers a packet line may stack (BTH(...)/AETH(...)) with their fields and widths,
// read from the codec's own headers (each header's kName and fields(), reference/wire), so
// the parser checks a packet line as the command schema checks a command: an unknown layer
// or field, a literal that does not fit its field (psn=0x1000000 in 24 bits), an unknown
// name (opcode=RC_SEND_ONYL) is a diagnostic at file:line:column with a did-you-mean.
// A computed value (psn=P+1) is judged when it runs: PSNs wrap there, as on the wire.
#pragma once

#include <vector>

#include "harness/script/ast.h"

namespace mr::script {

// Appends one diagnostic per problem of the packet's layers.
void check_packet(const PacketExpr& packet, const std::string& file, std::vector<Diagnostic>& out);

}  // namespace mr::script
