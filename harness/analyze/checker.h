// File: checker.h
//
// A passive clause check: it sees every decoded RoCEv2 packet of a capture in order, with
// the state of its flow, and reports what breaks its clauses. One checker per file, each
// registered in checker_table.cpp, as testpmd registers its forwarding engines.
//
// The analyzer updates the shared flow state (PSN bookkeeping, PMTU, pending READs) after
// all checkers have seen the packet, so a checker always sees the state before it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "harness/analyze/flow.h"
#include "reference/wire/frame_decoder.h"
#include "reference/wire/opcode.h"

namespace mr::analyze {

struct PacketContext {
  uint64_t frame = 0;
  uint64_t time_ns = 0;
  const wire::DecodedRoce& decoded;
  const wire::RocePacket& p;
  const wire::OpcodeInfo* info;  // nullptr for an opcode outside the table
  Direction& dir;                // the sender's direction
  bool by_tester = false;
  // How much closer together two frames' timestamps may be than their sending was (capture
  // jitter, AnalyzerOptions): a spacing rule is broken only by more than this.
  uint64_t timestamp_slack_ns = 0;
  // info->flags, or 0 without info: the checkers ask is() about twenty times per packet;
  // testing the pointer before each load cost 27 instructions per packet (cachegrind).
  uint32_t flags = info ? info->flags : 0;

  bool is(uint32_t flag) const { return (flags & flag) != 0; }
  bool is_request() const { return is(wire::kRequest); }
  bool is_response() const { return is(wire::kResponse); }
  uint32_t psn() const { return p.bth.psn.value(); }
};

class ViolationSink {
 public:
  virtual ~ViolationSink() = default;
  // `as_request`: the packet is named by the flow of its requests (true) or the flow its
  // responses answer (false); by default, what the opcode says.
  virtual void report(const PacketContext& c, std::string_view clause, std::string text) = 0;
};

class Checker {
 public:
  virtual ~Checker() = default;
  virtual void check(const PacketContext& c, ViolationSink& sink) = 0;
};

// Reports a violation with the text `make_text()` returns, built out of line. A check whose
// passing path builds no string needs no stack frame and no stack-protector canary: a packet
// passes six to eleven checks, each 5 instructions that way against 22 with the text built
// inline (cachegrind). Capture by value (or `&c`): capturing a local by reference would put
// it on the stack and bring the frame back.
//   if (v != 0) report_lazily(sink, c, "MR-WF-02", [v] { return "TVer " + std::to_string(v); });
template <typename MakeText>
[[gnu::cold, gnu::noinline]] void report_lazily(ViolationSink& sink, const PacketContext& c,
                                                std::string_view clause, MakeText make_text) {
  sink.report(c, clause, make_text());
}

std::string hex(uint32_t v, int digits = 6);  // "0x00012a"

}  // namespace mr::analyze
