// File: packet_comment.h
//
// What a pcapng packet comment (CapturedFrame::comment) says about its packet. The harness
// names the script line that injected or matched each packet there ("RC-PSN-004.mrt:10
// inject", "... expect", "... probe", "... probe answer"), which tells the tester's packets
// from the DUT's.
#pragma once

#include <string_view>

namespace mr::analyze {

// True for the comments the harness writes on packets it sent itself.
bool is_tester_comment(std::string_view comment);

}  // namespace mr::analyze
