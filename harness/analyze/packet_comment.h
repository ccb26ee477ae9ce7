// File: packet_comment.h
//
// The opt_comment of a pcapng Enhanced Packet Block, read from the file bytes at the
// block's offset. The harness names the script line that injected or matched each packet
// there ("RC-PSN-004.mrt:10 inject", "... expect", "... probe", "... probe answer"), which
// tells the tester's packets from the DUT's. Any malformation yields an empty view: the
// capture reader has already validated the block itself.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace mr::analyze {

std::string_view epb_comment(std::span<const uint8_t> file, uint64_t block_offset);

// True for the comments the harness writes on packets it sent itself.
bool is_tester_comment(std::string_view comment);

}  // namespace mr::analyze
