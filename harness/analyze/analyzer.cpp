#include "harness/analyze/analyzer.h"

#include <cstddef>
#include <span>
#include <utility>

#include "harness/analyze/checker_table.h"
#include "harness/analyze/flow_tracker.h"
#include "harness/analyze/malformed.h"

namespace mr::analyze {
Analyzer::Analyzer(OnViolation on_violation, AnalyzerOptions options)
    : on_violation_(std::move(on_violation)), options_(options) {
  const std::span<const CheckerEntry> table = checker_table();
  for (const CheckerEntry& e : table) checkers_.push_back(e.make());
  for (size_t op = 0; op < runs_for_.size(); ++op) {
    const bool known = op != kUnknownOpcode;
    const auto value = static_cast<uint8_t>(op);
    const wire::OpcodeInfo* info = known ? wire::opcode_info(value) : nullptr;
    const wire::OpcodeInfo* ext = known ? wire::opcode_info(value, wire::HeaderSet::kExt) : nullptr;
    for (size_t i = 0; i < table.size(); ++i) {
      const CheckerEntry& e = table[i];
      if (e.scope != HeaderScope::kExt && (!e.runs_on || e.runs_on(info)))
        runs_for_[op].push_back(checkers_[i].get());
      if (e.scope != HeaderScope::kBase && (!e.runs_on || e.runs_on(ext)))
        ext_runs_for_[op].push_back(checkers_[i].get());
    }
  }
}

void Analyzer::add(const io::CapturedFrame& frame) {
  decode_frame_input(frame, input_);
  add_input(input_);
}

void Analyzer::add_bytes(std::span<const uint8_t> bytes, uint64_t time_ns, bool by_tester) {
  decode_bytes_input(bytes, time_ns, by_tester, input_);
  add_input(input_);
}

void Analyzer::add_input(const FrameInput& in) {
  ++counts_.frames;
  switch (in.kind) {
    case FrameInput::Kind::kUnreadableLink:
      ++counts_.not_roce;
      return;
    case FrameInput::Kind::kSnapped:
      ++counts_.snapped;
      return;
    case FrameInput::Kind::kMalformed:
      ++counts_.malformed;
      report_malformed(in);
      return;
    case FrameInput::Kind::kDecoded:
      break;
  }
  const auto* roce = std::get_if<wire::DecodedRoce>(&in.decoded);
  if (!roce) {
    ++counts_.not_roce;
    return;
  }
  const uint64_t time_ns = in.time_ns;
  const bool by_tester = in.by_tester;
  ++counts_.roce;
  const wire::RocePacket& p = roce->packet;
  const wire::OpcodeInfo* info =
      roce->opcode_known ? wire::opcode_info(p.bth.opcode, p.bth.header_set()) : nullptr;
  const bool response = info && info->is(wire::kResponse);
  Direction& dir = flows_.find(in.key, in.key_hash, p.bth.psn.value(), response);
  const PacketContext c{.frame = counts_.frames,
                        .time_ns = time_ns,
                        .decoded = *roce,
                        .p = p,
                        .info = info,
                        .dir = dir,
                        .by_tester = by_tester,
                        .timestamp_slack_ns = options_.timestamp_slack_ns};
  const auto& runs = p.bth.is_ext() ? ext_runs_for_ : runs_for_;
  for (Checker* k : runs[info ? p.bth.opcode.value() : kUnknownOpcode]) k->check(c, *this);
  track(c);
}

void Analyzer::prefetch_slot(const FrameInput& in) const {
  if (in.kind == FrameInput::Kind::kDecoded) flows_.prefetch_slot(in.key_hash);
}

void Analyzer::prefetch_flow(const FrameInput& in) const {
  if (in.kind != FrameInput::Kind::kDecoded) return;
  flows_.prefetch_direction(in.key_hash);
  // The frame's tail (pad bytes, ICRC): the decode thread read it last, on the other core.
  if (!in.bytes.empty()) __builtin_prefetch(&in.bytes.back());
}

void Analyzer::report(const PacketContext& c, std::string_view clause, std::string text) {
  ++counts_.violations;
  if (c.by_tester) ++counts_.tester_violations;
  ++c.dir.violations[clause];
  Violation v{clause,
              c.frame,
              c.time_ns,
              c.dir.flow_label(!c.is_response()),
              c.dir.key.src.to_string(),
              c.by_tester,
              std::move(text)};
  on_violation_(v);
}

void Analyzer::report_malformed(const FrameInput& in) {
  ++counts_.violations;
  if (in.by_tester) ++counts_.tester_violations;
  // decode_frame_into leaves a DecodedRoce holding the headers read before the error.
  const auto* parsed = std::get_if<wire::DecodedRoce>(&in.decoded);
  Violation v;
  v.clause = clause_for(in.error, in.bytes);
  v.frame = counts_.frames;
  v.time_ns = in.time_ns;
  if (parsed && in.depth >= wire::DecodeDepth::kIp) {
    v.flow = ip_pair(parsed->packet, &v.sender);
  } else if (!parsed || std::holds_alternative<std::monostate>(parsed->cooked)) {
    v.flow = raw_ip_pair(in.bytes, &v.sender);  // an Ethernet frame refused before its IP
  } else {
    v.flow = "?";
  }
  v.by_tester = in.by_tester;
  v.text = "malformed packet: ";
  if (parsed && in.depth >= wire::DecodeDepth::kBth) {
    v.text = "malformed packet (" + bth_summary(parsed->packet.bth) + "): ";
  }
  v.text += in.error.to_string();
  on_violation_(v);
}

}  // namespace mr::analyze
