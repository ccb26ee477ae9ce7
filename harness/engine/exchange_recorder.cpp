#include "harness/engine/exchange_recorder.h"

#include <variant>

#include "harness/engine/frame_summary.h"
#include "reference/wire/frame_decoder.h"

namespace mr::engine {
namespace {

// The report's ladder shows this many frames of driven traffic; the pcapng holds every one.
constexpr size_t kMaxLadderDrivenFrames = 64;
// Bulk driven traffic past the ladder: the pcapng keeps whole frames up to this many bytes
// (every test but a long stream stays whole), then each frame's first kSnapLength bytes,
// its headers, with its length on the wire, as `tcpdump -s 128` does: a 100 Gbit/s stream
// of 10 ms would otherwise write 125 MB per test, and `mutants` runs it again per mutant.
constexpr size_t kWholeDrivenBytes = size_t{64} << 20;
constexpr size_t kSnapLength = 128;

io::RecordingLink::Direction direction(bool from_tester) {
  return from_tester ? io::RecordingLink::Direction::kSent
                     : io::RecordingLink::Direction::kReceived;
}

}  // namespace

ExchangeRecorder::ExchangeRecorder(TestContext& ctx, const std::string& capture_path) : ctx_(ctx) {
  if (capture_path.empty()) return;
  auto rec = io::RecordingLink::create(
      capture_path,
      {.application = "metaroce harness", .sent = "tester->dut", .received = "dut->tester"});
  if (rec) {
    capture_ = std::move(*rec);
    return;
  }
  // The run asked for the exchange's evidence and cannot keep it: the test is not judged
  // without it (a certification run must not pass with its captures missing).
  ctx_.error({1, 1}, "cannot write the capture " + capture_path + ": " + rec.error());
}

std::string ExchangeRecorder::script_name() const {
  const auto slash = ctx_.script.path.find_last_of('/');
  return ctx_.script.path.substr(slash == std::string::npos ? 0 : slash + 1);
}

void ExchangeRecorder::tally(const wire::RocePacket& p, bool from_tester, bool sent, bool dropped) {
  if (!p.mxh) return;
  const auto key = std::make_tuple(from_tester, p.mxh->plane.value(), p.mxh->ev.value());
  auto [it, added] = path_index_.try_emplace(key, ctx_.result.paths.size());
  if (added) {
    ctx_.result.paths.push_back(
        {.from_tester = from_tester, .plane = std::get<1>(key), .ev = std::get<2>(key)});
  }
  report::PathTally& t = ctx_.result.paths[it->second];
  if (sent) {
    ++t.packets;
    t.retransmissions += p.mxh->retx.value();
  }
  t.dropped += dropped ? 1 : 0;
}

void ExchangeRecorder::tally(const std::vector<uint8_t>& frame, bool from_tester, bool sent,
                             bool dropped) {
  auto d = wire::decode_frame(frame);
  if (const auto* r = d ? std::get_if<wire::DecodedRoce>(&*d) : nullptr)
    tally(r->packet, from_tester, sent, dropped);
}

std::optional<uint64_t> ExchangeRecorder::record(const std::vector<uint8_t>& frame, uint64_t t_ns,
                                                 bool from_tester, const std::string& ref) {
  return record_traffic(frame, t_ns, from_tester, ref, true);
}

std::optional<uint64_t> ExchangeRecorder::record_traffic(const std::vector<uint8_t>& frame,
                                                         uint64_t t_ns, bool from_tester,
                                                         const std::string& ref, bool count) {
  if (count) tally(frame, from_tester, true, false);
  report::PacketRecord r;
  r.t_ns = static_cast<int64_t>(t_ns - ctx_.t0_ns);  // two's complement: before t0 is negative
  r.from_tester = from_tester;
  r.summary = frame_summary(frame);
  r.script_ref = ref;
  r.decoded = decoded_json(frame);
  ctx_.result.packets.push_back(std::move(r));
  if (!capture_) return std::nullopt;
  return capture_->record(frame, t_ns, direction(from_tester),
                          ref.empty() ? (from_tester ? "tester" : "dut: unmatched") : ref);
}

void ExchangeRecorder::record_driven(const std::vector<uint8_t>& frame, uint64_t t_ns,
                                     bool from_tester) {
  std::string name = "tester";
  auto d = wire::decode_frame(frame);
  if (const auto* r = d ? std::get_if<wire::DecodedRoce>(&*d) : nullptr) {
    tally(r->packet, from_tester, true, false);
    const uint32_t dqpn = r->packet.bth.dqpn.value();
    for (const auto& [n, t] : ctx_.tester_qps) {
      const bool ours = from_tester ? ctx_.qps.at(t.dut_qp).dut_qpn == dqpn : t.qpn == dqpn;
      if (!t.dut_qp.empty() && ours) name = "tester " + n;
    }
  }
  const std::string ref = name + (from_tester ? " (driven)" : " (received)");
  if (driven_recorded_++ >= kMaxLadderDrivenFrames)
    return capture_bulk(frame, t_ns, from_tester, ref);
  record_traffic(frame, t_ns, from_tester, ref, false);
  // Driven payloads are seeded patterns judged by expect_mem: the ladder shows their length
  // (in the summary), the pcapng their bytes.
  auto& decoded = ctx_.result.packets.back().decoded;
  if (decoded.is_object()) decoded.erase("payload");
}

void ExchangeRecorder::record_fault(const FaultEvent& e, const std::vector<uint8_t>& frame,
                                    uint64_t t_ns) {
  const std::string ref = script_name() + ":" + std::to_string(e.line) +
                          (e.random ? " impair " : " event ") +
                          std::string(io::impairment_action_name(e.action)) +
                          (e.random ? std::string() : " (tx " + std::to_string(e.tx) + ")");
  const bool from_tester = e.direction == FaultDirection::kTester;
  // A DUT frame the fault layer drops is recorded here only; a tester frame was counted as
  // sent when the tester sent it.
  if (e.action == FaultAction::kDrop) tally(frame, from_tester, !from_tester, true);
  if (e.random && driven_recorded_++ >= kMaxLadderDrivenFrames)
    return capture_bulk(frame, t_ns, from_tester, ref);
  record_traffic(frame, t_ns, from_tester, ref, false);
}

void ExchangeRecorder::capture_bulk(const std::vector<uint8_t>& frame, uint64_t t_ns,
                                    bool from_tester, std::string ref) {
  if (!capture_) return;
  if (whole_bytes_ < kWholeDrivenBytes) {
    whole_bytes_ += frame.size();
    capture_->record(frame, t_ns, direction(from_tester), std::move(ref));
    return;
  }
  if (!snapping_) {
    snapping_ = true;
    ref += "; from here driven frames keep their first " + std::to_string(kSnapLength) +
           " bytes (" + std::to_string(kWholeDrivenBytes >> 20) + " MiB were recorded whole)";
  }
  capture_->record(frame, t_ns, direction(from_tester), std::move(ref), kSnapLength);
}

void ExchangeRecorder::note_failures(std::optional<uint64_t> frame, size_t failures_before) {
  if (!capture_ || !frame) return;
  const auto& failures = ctx_.result.failures;
  for (size_t i = failures_before; i < failures.size(); ++i) {
    const auto& f = failures[i];
    std::string text = "line " + std::to_string(f.line) + ": ";
    if (!f.field.empty())
      text += f.field + " expected " + f.expected + ", actual " + f.actual + ": ";
    capture_->annotate(*frame, text + f.message);
  }
}

}  // namespace mr::engine
