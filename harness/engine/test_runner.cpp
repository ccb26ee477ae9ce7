#include "harness/engine/test_runner.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <map>
#include <optional>
#include <span>
#include <sstream>

#include "harness/engine/bottleneck_commands.h"
#include "harness/engine/bottleneck_port.h"
#include "harness/engine/driven_port.h"
#include "harness/engine/dut_commands.h"
#include "harness/engine/evaluate.h"
#include "harness/engine/event_command.h"
#include "harness/engine/exchange_recorder.h"
#include "harness/engine/fault_port.h"
#include "harness/engine/frame_summary.h"
#include "harness/engine/pics_predicate.h"
#include "harness/engine/script_loops.h"
#include "harness/engine/script_values.h"
#include "harness/engine/secure_session.h"
#include "harness/engine/test_context.h"
#include "harness/engine/tester_commands.h"
#include "harness/engine/trace_judge.h"
#include "reference/wire/aeth_syndrome.h"
#include "reference/wire/frame_builder.h"
#include "reference/wire/frame_decoder.h"
#include "reference/wire/opcode.h"
#include "reference/wire/packet_json.h"
#include "reference/wire/psn.h"

namespace mr::engine {
namespace {

using report::Verdict;
using script::PacketLine;

uint64_t ms(double v) { return static_cast<uint64_t>(std::llround(v * 1e6)); }

// The most packets one `> within N` line may pass over: a bound, as every wait has.
constexpr uint64_t kMaxWithin = 1 << 20;

uint64_t seconds_ns(double s) { return static_cast<uint64_t>(std::llround(s * 1e9)); }

class Runner {
 public:
  Runner(TestContext& ctx, ExchangeRecorder& rec) : ctx_(ctx), rec_(rec) {}

  // The failures reported while this lives go into the comment of the frame just recorded.
  struct Noted {
    ExchangeRecorder& rec;
    std::optional<uint64_t> frame;
    size_t before;
    ~Noted() { rec.note_failures(frame, before); }
  };
  Noted noted(std::optional<uint64_t> frame) { return {rec_, frame, ctx_.result.failures.size()}; }

  std::string ref(const script::Position& pos, const char* what) const {
    const auto slash = ctx_.script.path.find_last_of('/');
    return ctx_.script.path.substr(slash == std::string::npos ? 0 : slash + 1) + ":" +
           std::to_string(pos.line) + " " + what;
  }

  uint64_t base(const script::TimeSpec& t) const {
    return t.relative ? ctx_.last_event_ns : ctx_.t0_ns;
  }

  // Consecutive `<` lines: the first at its time, each further one at `+0` (or `+0~x`) after
  // the one before. Every frame is built before the first goes out and recorded after the
  // last, so that on a real-clock bed nothing but the sends lies between them (the first
  // frame recorded in a test costs more than a 20 us window allows).
  void inject(std::span<const PacketLine* const> lines) {
    const QpBinding* qp = ctx_.qp();
    if (qp == nullptr)
      return ctx_.error(lines[0]->pos, "a packet line before any 'dut qp X = create_qp(...)'");
    std::vector<std::vector<uint8_t>> frames;
    for (const PacketLine* line : lines) {
      auto frame = synthesize(line->packet, qp->connection, ctx_.symbols);
      if (!frame) return ctx_.error(frame.error().pos, frame.error().message);
      if (qp->connection.secure && !qp->tester_qp.empty()) {
        return ctx_.error(line->pos,
                          "secure mode: tester QP " + qp->tester_qp +
                              " sends on this connection with its own PNs; a `<` line would "
                              "reuse them (one sender per SA): write it before `connect`");
      }
      if (qp->connection.secure) {
        if (auto sealed = qp->connection.secure->seal(*frame, line->packet); !sealed)
          return ctx_.error(line->pos, "secure mode: " + sealed.error());
      }
      frames.push_back(std::move(*frame));
    }
    std::vector<uint64_t> sent(lines.size());
    for (size_t i = 0; i < lines.size(); ++i) sent[i] = send(*lines[i], frames[i]);
    for (size_t i = 0; i < lines.size(); ++i) {
      rec_.record(frames[i], sent[i], true, ref(lines[i]->pos, "inject"));
      if (!qp->tester_qp.empty()) follow_crafted_request(*qp, frames[i]);
    }
  }

  // One `<` line's frame at the line's time; the time it went out.
  uint64_t send(const PacketLine& line, const std::vector<uint8_t>& frame) {
    const uint64_t nominal = base(line.time) + seconds_ns(line.time.start_s);
    // `+a~b <`: the tester must have sent by b, or the DUT saw another stimulus than the
    // script's (three packets meant to arrive within 50 us, spread over 200).
    const std::optional<uint64_t> send_by =
        line.time.end_s && !line.time.any
            ? std::optional(base(line.time) + seconds_ns(*line.time.end_s))
            : std::nullopt;
    if (!line.time.any) ctx_.port.wait_until(nominal);
    const uint64_t sent = ctx_.port.inject(frame);
    last_injected_ns_ = sent;
    // A real-time bed sends late (scheduling, poll() wake-ups); the embedded DUT's virtual
    // clock never does. A timer the DUT started earlier then fires "early" relative to this
    // packet by exactly the lateness, so the next window's lower bound moves by it; beyond
    // the PIXIT's absolute tolerance the exchange is no longer the script's.
    ctx_.anchor_lateness_ns = line.time.any || sent <= nominal ? 0 : sent - nominal;
    if (ctx_.anchor_lateness_ns > ms(ctx_.pixit.tolerance_abs_ms) && ctx_.tester_late.empty()) {
      ctx_.tester_late = "the tester sent line " + std::to_string(line.pos.line) + " " +
                         std::to_string((sent - nominal) / 1000) + " us late";
    }
    if (send_by && sent > *send_by && ctx_.tester_late.empty()) {
      ctx_.tester_late = "the tester sent line " + std::to_string(line.pos.line) + " " +
                         std::to_string((sent - *send_by) / 1000) +
                         " us after the end of its window";
    }
    ctx_.last_event_ns = sent;
    return sent;
  }

  // A crafted request goes out in the connected tester QP's name: its PSN is the tester's
  // from then on (a READ consumes one PSN per response packet).
  void follow_crafted_request(const QpBinding& qp, const std::vector<uint8_t>& frame) {
    auto d = wire::decode_frame(frame);
    const auto* r = d ? std::get_if<wire::DecodedRoce>(&*d) : nullptr;
    const auto* info = r ? wire::opcode_info(r->packet.bth.opcode.value()) : nullptr;
    if (info == nullptr || !info->is(wire::kRequest)) return;
    uint32_t last = r->packet.bth.psn.value();
    if (info->is(wire::kRead) && r->packet.reth && r->packet.reth->dlen.value() > 0) {
      const uint64_t packets = (uint64_t{r->packet.reth->dlen.value()} + qp.mtu - 1) / qp.mtu;
      last = wire::psn_add(last, static_cast<int64_t>(packets) - 1);
    }
    ctx_.driven->peer()->note_crafted_request(ctx_.tester_qps.at(qp.tester_qp).qpn, last);
  }

  // [earliest, latest] arrival for an expected packet (PIXIT tolerance around the nominal
  // time: max(absolute, percent of the gap since the previous event)).
  std::pair<uint64_t, uint64_t> window(const script::TimeSpec& t, bool silence) const {
    auto [earliest, latest] = nominal_window(t, silence);
    if (t.relative)
      earliest = earliest > ctx_.anchor_lateness_ns ? earliest - ctx_.anchor_lateness_ns : 0;
    return {earliest, latest};
  }

  std::pair<uint64_t, uint64_t> nominal_window(const script::TimeSpec& t, bool silence) const {
    // A time relative to a packet the DUT sent before the script's clock started (answering
    // the `dut` set-up) counts from the clock's start, and the packet may have come before it
    // too: between such packets lie the set-up's control round trips, not the DUT's timing.
    if (t.relative && !t.any && !silence && ctx_.last_event_ns < ctx_.t0_ns) {
      const script::TimeSpec from_start{.relative = false, .start_s = t.start_s, .end_s = t.end_s};
      return {0, nominal_window(from_start, silence).second};
    }
    const uint64_t from = base(t);
    // `*`: any time. A remote DUT may already have answered a `dut` command (post_send)
    // before the control reply came back, i.e. before the script's clock started.
    if (t.any) return {0, ctx_.last_event_ns + ms(static_cast<double>(ctx_.pixit.expect_ms))};
    if (t.end_s) {
      // docs/spec/pixit.md: "within X" is checked as no later than X plus the tolerance, and
      // "no earlier than X" as no earlier than X minus it.
      const uint64_t lo = from + seconds_ns(t.start_s);
      const uint64_t hi = from + seconds_ns(*t.end_s);
      const uint64_t tol =
          std::max(ms(ctx_.pixit.tolerance_abs_ms),
                   static_cast<uint64_t>(static_cast<double>(seconds_ns(*t.end_s)) *
                                         ctx_.pixit.tolerance_percent / 100));
      // Silence (`> none`) is proven only where the DUT certainly must not send: the
      // tolerance shrinks its window instead.
      if (silence) return {lo, std::max(lo, hi > tol ? hi - tol : 0)};
      return {lo > from + tol ? lo - tol : from, hi + tol};
    }
    const uint64_t nominal = from + seconds_ns(t.start_s);
    const double gap_ns =
        nominal > ctx_.last_event_ns ? static_cast<double>(nominal - ctx_.last_event_ns) : 0;
    const uint64_t tol =
        std::max(ms(ctx_.pixit.tolerance_abs_ms),
                 static_cast<uint64_t>(gap_ns * ctx_.pixit.tolerance_percent / 100));
    return {nominal > tol ? nominal - tol : 0, nominal + tol};
  }

  // When a `>` line's packet may come, and the event its `not_before` counts from.
  static constexpr uint64_t kUnanchored = ~uint64_t{0};
  struct Awaited {
    uint64_t earliest;
    uint64_t latest;
    uint64_t anchor_ns;
  };

  void expect(const PacketLine& line) {
    const QpBinding* qp = ctx_.qp();
    if (qp == nullptr)
      return ctx_.error(line.pos, "a packet line before any 'dut qp X = create_qp(...)'");
    const auto [earliest, latest] = window(line.time, line.packet.none);
    if (line.packet.none) return expect_silence(line, latest);
    // `not_before S` measures from the DUT packet the previous line matched. After a failure
    // that line may have matched nothing: the rate then has no anchor (kUnanchored), and the
    // verdict is fail already.
    const bool anchored = last_dut_packet_ns_ == ctx_.last_event_ns;
    const Awaited awaited{earliest, latest, anchored ? ctx_.last_event_ns : kUnanchored};
    if (line.not_before_s && !anchored && ctx_.result.failures.empty()) {
      return ctx_.error(line.pos,
                        "not_before measures from the DUT packet the previous line matched, "
                        "but the previous line is not a '>' line that matched one");
    }
    const auto candidates = within_count(line);
    if (!candidates) return;
    // `within N`: packets that do not match are passed over, as long as they are valid
    // packets of the connection; the last candidate is judged like a plain `>` line.
    for (uint64_t seen = 1; seen < *candidates; ++seen) {
      auto f = ctx_.port.receive(latest);
      if (!f) return missing(line, latest, seen - 1);
      if (settles_within(line, *qp, *f, awaited, seen)) return;
    }
    judge_last_candidate(line, *qp, awaited, *candidates);
  }

  // `> none`: the DUT stays silent until the window closes.
  void expect_silence(const PacketLine& line, uint64_t latest) {
    if (auto f = ctx_.port.receive(latest)) {
      const auto note =
          noted(rec_.record(f->bytes, f->t_ns, false, ref(line.pos, "unexpected (none expected)")));
      ctx_.fail(line.pos, "packet", "none", frame_summary(f->bytes),
                "the DUT sent a packet where none was expected");
      ctx_.last_event_ns = f->t_ns;
      return;
    }
    ctx_.last_event_ns = latest;
    ctx_.anchor_lateness_ns = 0;
  }

  // How many packets a line may look at: 1, or its `within N` (bounded); nullopt after
  // reporting the harness error.
  std::optional<uint64_t> within_count(const PacketLine& line) {
    if (!line.within) return 1;
    auto n = evaluate_number(*line.within, ctx_.symbols);
    if (!n) {
      ctx_.error(line.within->pos, "within: " + n.error());
      return std::nullopt;
    }
    if (*n == 0 || *n > kMaxWithin) {
      ctx_.error(line.within->pos, "within N: N is 1.." + std::to_string(kMaxWithin));
      return std::nullopt;
    }
    return *n;
  }

  // A candidate before a `within` line's last: true if it settles the line (it matched, or
  // the line could not be evaluated); false if it was passed over, checked only against the
  // connection's implicit rules.
  bool settles_within(const PacketLine& line, const QpBinding& qp, const DutFrame& f,
                      const Awaited& awaited, uint64_t seen) {
    auto d = wire::decode_frame(f.bytes);
    auto* roce = d ? std::get_if<wire::DecodedRoce>(&*d) : nullptr;
    open_secure(line.pos, qp, f, roce, just_recorded() + 1);  // recorded next, either way
    auto mismatches = roce ? match(line.packet, *roce, qp.connection, ctx_.symbols)
                           : Expected<std::vector<FieldMismatch>, SynthesisError>{};
    if (!mismatches) {
      ctx_.error(mismatches.error().pos, mismatches.error().message);
      return true;
    }
    if (roce != nullptr && mismatches->empty()) {
      matched(line, f, *roce, awaited.earliest, seen, awaited.anchor_ns);
      return true;
    }
    const auto note =
        noted(rec_.record(f.bytes, f.t_ns, false, ref(line.pos, "passed over (within)")));
    ctx_.last_event_ns = f.t_ns;
    if (roce == nullptr) {
      ctx_.fail(line.pos, "packet", "a RoCEv2 packet", frame_summary(f.bytes),
                "the DUT sent something that is not RoCEv2", nullptr, nullptr, just_recorded());
      return false;
    }
    check_source_port(line.pos, *roce);
    const script::PacketExpr nothing;  // the connection's implicit checks only
    if (auto base = match(nothing, *roce, qp.connection, ctx_.symbols); base) {
      for (const auto& m : *base) {
        ctx_.fail(line.pos, m.field, m.expected, m.actual,
                  "a passed-over packet is not valid: " + frame_summary(f.bytes), nullptr,
                  wire::to_json(*roce), just_recorded());
      }
    }
    return false;
  }

  // A plain `>` line's packet, or a `within` line's last candidate: every field that differs
  // is a failure.
  void judge_last_candidate(const PacketLine& line, const QpBinding& qp, const Awaited& awaited,
                            uint64_t candidates) {
    auto f = ctx_.port.receive(awaited.latest);
    if (!f) return missing(line, awaited.latest, candidates - 1);
    const auto note = noted(rec_.record(f->bytes, f->t_ns, false, ref(line.pos, "expect")));
    ctx_.last_event_ns = f->t_ns;
    last_dut_packet_ns_ = f->t_ns;
    ctx_.anchor_lateness_ns = 0;
    check_not_early(line, f->t_ns, awaited.earliest);
    check_not_before(line, f->t_ns, awaited.anchor_ns, candidates);
    auto d = wire::decode_frame(f->bytes);
    auto* roce = d ? std::get_if<wire::DecodedRoce>(&*d) : nullptr;
    if (roce == nullptr) {
      ctx_.fail(line.pos, "packet", "a RoCEv2 packet", frame_summary(f->bytes),
                "the DUT sent something that is not RoCEv2", nullptr, nullptr, just_recorded());
      return;
    }
    open_secure(line.pos, qp, *f, roce, just_recorded());
    check_source_port(line.pos, *roce);
    auto mismatches = match(line.packet, *roce, qp.connection, ctx_.symbols);
    if (!mismatches) return ctx_.error(mismatches.error().pos, mismatches.error().message);
    const std::string after =
        candidates > 1 ? " (none of the " + std::to_string(candidates) + " candidates matched)"
                       : "";
    for (const auto& m : *mismatches) {
      ctx_.fail(m.pos, m.field, m.expected, m.actual,
                (m.detail.empty() ? "field differs" : m.detail) +
                    "; actual packet: " + frame_summary(f->bytes) + after,
                expected_json(line.packet, ctx_.symbols), wire::to_json(*roce), just_recorded());
    }
    remember(*roce, f->t_ns);
  }

  // Section 19.4: a secure connection's DUT packet is judged (SX, SECH, PN, both tags) and
  // opened, so that the line compares its plaintext; `packet` is its index in the record.
  void open_secure(const script::Position& pos, const QpBinding& qp, const DutFrame& f,
                   wire::DecodedRoce* roce, size_t packet) {
    if (roce == nullptr || !qp.connection.secure) return;
    for (const SecureProblem& s : qp.connection.secure->open(f.bytes, *roce)) {
      ctx_.fail(pos, s.field, s.expected, s.actual,
                s.clause + ": the DUT's packet on a secure connection: " + frame_summary(f.bytes),
                nullptr, wire::to_json(*roce), packet);
    }
  }

  // A `within` line found its packet after passing over `seen - 1` others.
  void matched(const PacketLine& line, const DutFrame& f, const wire::DecodedRoce& roce,
               uint64_t earliest, uint64_t seen, uint64_t anchor_ns) {
    const auto note = noted(
        rec_.record(f.bytes, f.t_ns, false,
                    ref(line.pos, ("expect (candidate " + std::to_string(seen) + ")").c_str())));
    ctx_.last_event_ns = f.t_ns;
    last_dut_packet_ns_ = f.t_ns;
    ctx_.anchor_lateness_ns = 0;
    check_not_early(line, f.t_ns, earliest);
    check_not_before(line, f.t_ns, anchor_ns, seen);
    check_source_port(line.pos, roce);
    remember(roce, f.t_ns);
  }

  // `not_before S`: the packet `count` packets after the anchor came no sooner than S after
  // it, so those packets left at a mean rate of at most one per S / count.
  void check_not_before(const PacketLine& line, uint64_t t_ns, uint64_t anchor_ns, uint64_t count) {
    if (!line.not_before_s || anchor_ns == kUnanchored) return;
    const uint64_t least = seconds_ns(*line.not_before_s);
    const uint64_t spacing = t_ns > anchor_ns ? t_ns - anchor_ns : 0;
    if (spacing >= least) return;
    ctx_.fail(line.pos, "time", "at least " + std::to_string(least) + " ns after the packet before",
              std::to_string(spacing) + " ns",
              "the packet came too soon: " + std::to_string(count) +
                  " packet(s) after the previous line's, faster than not_before allows");
  }

  // A matched packet must not come before its window (a plain `>` line or a `within` match).
  void check_not_early(const PacketLine& line, uint64_t t_ns, uint64_t earliest) {
    if (t_ns >= earliest) return;
    ctx_.fail(line.pos, "time", "not before " + since_start(earliest), since_start(t_ns),
              "the packet arrived too early");
  }

  void missing(const PacketLine& line, uint64_t latest, uint64_t passed_over) {
    ctx_.fail(line.pos, "packet", "a packet by " + since_start(latest), "none",
              passed_over == 0 ? "the expected packet did not arrive"
                               : "the expected packet did not arrive (" +
                                     std::to_string(passed_over) + " passed over)");
    ctx_.last_event_ns = latest;
  }

  // "+1200 us", or "-300 us" for a time before the script's clock started (a remote DUT may
  // answer a `dut` command before the first packet line).
  std::string since_start(uint64_t t_ns) const {
    if (t_ns >= ctx_.t0_ns) return "+" + std::to_string((t_ns - ctx_.t0_ns) / 1000) + " us";
    return "-" + std::to_string((ctx_.t0_ns - t_ns) / 1000) + " us";
  }

  // `last.psn`, `last.msn`, `last.opcode`, `last.sport`, and of an Ext packet `last.ev`,
  // `last.plane`, `last.tx_ts`: the packet the latest `>` line matched, for the lines after
  // it (an ACK for whatever PSN the DUT chose to request one on; the EV it chose). An Ext
  // ACK's `last.service_time` (SACKETH, units of 64 ns), and `last.gap_ns`: from the tester's
  // latest `<` packet to this one's arrival, which bounds the time the DUT held it.
  void remember(const wire::DecodedRoce& roce, uint64_t t_ns) {
    ctx_.symbols.set("last.psn", roce.packet.bth.psn.value());
    ctx_.symbols.set("last.opcode", roce.packet.bth.opcode.value());
    ctx_.symbols.set("last.sport", roce.packet.udp.sport);
    // A packet without an AETH has no MSN, one without an MXH (an ACK: its EV is its UDP
    // source port) none of these: a stale value from an earlier packet would be read as its.
    for (const char* name :
         {"last.msn", "last.ev", "last.plane", "last.tx_ts", "last.service_time", "last.gap_ns"})
      ctx_.symbols.erase(name);
    if (roce.packet.sacketh)
      ctx_.symbols.set("last.service_time", roce.packet.sacketh->service_time.value());
    if (last_injected_ns_ && t_ns >= *last_injected_ns_)
      ctx_.symbols.set("last.gap_ns", t_ns - *last_injected_ns_);
    if (roce.packet.aeth) ctx_.symbols.set("last.msn", roce.packet.aeth->msn.value());
    if (const auto& mxh = roce.packet.mxh) {
      ctx_.symbols.set("last.ev", mxh->ev.value());
      ctx_.symbols.set("last.plane", mxh->plane.value());
      ctx_.symbols.set("last.tx_ts", mxh->tx_timestamp.value());
    }
  }

  // MR-WF-08: every packet of a base-mode connection carries the UDP source port of its first;
  // the connection is the one whose tester QP the packet is addressed to. An Ext connection's
  // port is its EV, which may change (section 20.3: a timeout can make the entry unusable),
  // and must be one of its set's, encoded as section 20.2 says (entropy_check.h).
  void check_source_port(const script::Position& pos, const wire::DecodedRoce& roce) {
    for (auto& [name, binding] : ctx_.qps) {
      if (binding.connection.tester_qpn != roce.packet.bth.dqpn) continue;
      if (binding.connection.ext) {
        for (const EntropyProblem& e : entropy_problems(binding.ev_set, roce)) {
          ctx_.fail(pos, e.field, e.expected, e.actual,
                    e.clause + ": the DUT's Ext packet on QP " + name +
                        " is not sent with an entry of its EV set as section 20 encodes it",
                    nullptr, wire::to_json(roce), just_recorded());
        }
        return;
      }
      const uint16_t sport = roce.packet.udp.sport;
      if (!binding.dut_udp_sport) {
        binding.dut_udp_sport = sport;
      } else if (sport != *binding.dut_udp_sport) {
        ctx_.fail(pos, "UDP.sport", format_value(*binding.dut_udp_sport, 16),
                  format_value(sport, 16),
                  "the DUT changed the UDP source port of the connection of QP " + name);
      }
      return;
    }
  }

  // A liveness probe: a zero-length RDMA WRITE at the given PSN with AckReq must draw an ACK
  // for that PSN. It proves that an earlier silence was a drop, not a dead DUT.
  void probe(const script::Command& c) {
    const QpBinding* qp = ctx_.command_qp(c, "probe");
    if (qp == nullptr) return;
    const script::FieldArg* psn_arg = nullptr;
    for (const auto& a : c.args) {
      if (a.name == "psn")
        psn_arg = &a;
      else
        return ctx_.error(a.pos, "probe: unknown argument '" + a.name + "' (probe [QP] psn=EXPR)");
    }
    if (psn_arg == nullptr)
      return ctx_.error(c.pos, "probe needs psn=EXPR (the PSN the DUT expects next)");
    auto psn = evaluate_number(psn_arg->value, ctx_.symbols);
    if (!psn) return ctx_.error(psn_arg->pos, "probe psn: " + psn.error());
    wire::RocePacket p = connection_packet(qp->connection);
    p.bth.opcode = wire::kOpRcRdmaWriteOnly;  // zero length: valid whatever the R_Key (MR-MP-06)
    p.bth.psn = *psn;
    p.bth.ackreq = 1;
    p.reth = wire::Reth{0, 0, 0};
    const auto frame = wire::build_frame(p);
    const uint64_t sent = ctx_.port.inject(frame);
    rec_.record(frame, sent, true, ref(c.pos, "probe"));
    auto f = ctx_.port.receive(sent + ms(static_cast<double>(ctx_.pixit.expect_ms)));
    if (!f) {
      ctx_.fail(c.pos, "probe", "an ACK for PSN " + format_value(*psn & wire::kPsnMask, 24), "none",
                "liveness probe unanswered: the DUT stopped responding, so the silence before is "
                "not a proven drop");
      return;
    }
    const auto note = noted(rec_.record(f->bytes, f->t_ns, false, ref(c.pos, "probe answer")));
    ctx_.last_event_ns = f->t_ns;
    auto d = wire::decode_frame(f->bytes);
    const auto* r = d ? std::get_if<wire::DecodedRoce>(&*d) : nullptr;
    if (!r || r->packet.bth.opcode != wire::kOpRcAcknowledge || !r->packet.aeth ||
        !wire::is_ack(r->packet.aeth->syndrome) || r->packet.bth.psn != (*psn & wire::kPsnMask)) {
      ctx_.fail(c.pos, "probe",
                "RC_ACKNOWLEDGE psn " + format_value(*psn & wire::kPsnMask, 24) + " syndrome ACK",
                frame_summary(f->bytes), "liveness probe drew the wrong answer");
    }
  }

  // No DUT packet may remain unexplained at the end (packetdrill's rule).
  void quiet_period(DrivenPort& driven) {
    const uint64_t until = ctx_.port.now_ns() + ms(static_cast<double>(ctx_.pixit.no_packet_ms));
    for (int i = 0; i < 16; ++i) {
      // What the tester's QPs take is explained: they are the DUT's peer.
      auto f = driven.receive_unclaimed(until);
      if (!f) return;
      const auto note = noted(rec_.record(f->bytes, f->t_ns, false, ""));
      // Cited at the line it follows, the script's last, never at line 0.
      ctx_.fail(last_line(), "packet", "no further packet", frame_summary(f->bytes),
                "after the last line, the DUT sent a packet the script does not expect", nullptr,
                nullptr, just_recorded());
    }
  }

 private:
  // The number (1-based, report::Failure::packet) of the packet rec_.record took last: the
  // one a failure right after recording it is about.
  size_t just_recorded() const { return ctx_.result.packets.size(); }

  script::Position last_line() const {
    if (ctx_.script.statements.empty()) return {1, 1};
    return std::visit([](const auto& st) { return st.pos; }, ctx_.script.statements.back());
  }

  TestContext& ctx_;
  ExchangeRecorder& rec_;
  std::optional<uint64_t> last_injected_ns_;    // the tester's latest `<` packet (last.gap_ns)
  std::optional<uint64_t> last_dut_packet_ns_;  // when the latest `>` line's packet came
};

bool reads_counters(const script::Script& script) {
  return std::ranges::any_of(script.statements, [](const script::Statement& st) {
    const auto* c = std::get_if<script::Command>(&st);
    return c != nullptr && c->actor == "dut" && c->name == "expect_counter";
  });
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// The test's identity, read from its header: what every verdict, even an error, carries.
report::TestResult describe(const script::Script& script) {
  report::TestResult result;
  const auto meta = [&](const char* key) {
    return script.metadata.contains(key) ? script.metadata.at(key) : std::string();
  };
  result.file = script.path;
  result.tp_id = script.metadata.contains("tp") ? script.metadata.at("tp") : script.path;
  result.purpose = meta("purpose");
  result.group = meta("group");
  result.pics = meta("pics");
  for (const auto& c : split(meta("clause"))) {
    if (c.rfind("MR-", 0) == 0) result.clauses.push_back(c);
  }
  return result;
}

// Whether the DUT's PICS claims what the test needs; if not, the result says why.
bool applies(report::TestResult& result, const TestOptions& options) {
  auto applicable = evaluate_pics(result.pics, options.pics);
  if (!applicable) {
    result.verdict = Verdict::kError;
    result.reason = result.file + ": pics: " + applicable.error();
    return false;
  }
  if (!*applicable) {
    result.verdict = Verdict::kNotApplicable;
    result.reason = "the PICS does not claim " + result.pics;
    return false;
  }
  return true;
}

// The script's clock starts with its first packet line: the `dut` set-up before it takes real
// time on a remote DUT, and `0` means "when the exchange begins". False if the counters'
// baseline could not be read (the test is already judged).
bool start_exchange(TestContext& ctx, const PacketLine& line) {
  if (reads_counters(ctx.script)) {
    // The baseline expect_counter compares with; a DUT out of resources here is inconc as
    // anywhere else (checked).
    auto counters = checked(ctx, line.pos, dut_client(ctx).counters());
    if (!counters) return false;
    ctx.counters_at_start = *counters;
  }
  ctx.t0_ns = ctx.last_event_ns = ctx.port.now_ns();
  return true;
}

// The next relative time counts from the end of a command: it took time (a real control
// round trip, or the settling wait of an expect_* command).
void after_command(TestContext& ctx, bool exchange_started) {
  if (exchange_started && ctx.port.now_ns() > ctx.last_event_ns) {
    ctx.last_event_ns = ctx.port.now_ns();
    ctx.anchor_lateness_ns = 0;
  }
}

// A `<` line due as soon as the one before it has gone out (`+0`, `+0~x`): the two leave as
// one burst.
bool sent_right_after(const script::TimeSpec& t) { return t.relative && !t.any && t.start_s == 0; }

// `param.NAME`: the PIXIT's value of each whole-number parameter of section 30, so that a
// script's rates, sizes and times follow the test bed's (a ratio is read by the command that
// judges with it).
void bind_parameters(TestContext& ctx) {
  const auto p = ctx.pixit.raw.find("parameters");
  if (p == ctx.pixit.raw.end() || !p->is_object()) return;
  for (const auto& [name, value] : p->items()) {
    if (value.is_number_unsigned()) {
      ctx.symbols.set("param." + name, value.get<uint64_t>());
    } else if (value.is_number() && value.get<double>() >= 0 &&
               value.get<double>() == std::floor(value.get<double>())) {
      ctx.symbols.set("param." + name, static_cast<uint64_t>(value.get<double>()));
    }
  }
}

// Each statement runs once, except the bodies of `repeat` loops; every loop is bounded by its
// max=, so this ends.
void run_statements(TestContext& ctx, Runner& runner, FaultPort& faults) {
  const auto& statements = ctx.script.statements;
  bool exchange_started = false;
  ScriptLoops loops(statements);
  for (size_t pc = 0; pc < statements.size() && !ctx.aborted; ++pc) {
    if (const auto* line = std::get_if<PacketLine>(&statements[pc])) {
      if (!exchange_started && !start_exchange(ctx, *line)) return;
      exchange_started = true;
      if (line->inject) {
        std::vector<const PacketLine*> burst{line};
        // With tester QPs running, their frames are recorded as they go: one line at a time
        // keeps the capture in time order.
        while (pc + 1 < statements.size() && !ctx.driven->active()) {
          const auto* next = std::get_if<PacketLine>(&statements[pc + 1]);
          if (next == nullptr || !next->inject || !sent_right_after(next->time)) break;
          burst.push_back(next);
          ++pc;
        }
        runner.inject(burst);
      } else {
        runner.expect(*line);
      }
      continue;
    }
    const auto& c = std::get<script::Command>(statements[pc]);
    if (c.actor == "dut") {
      run_dut_command(c, ctx);
      after_command(ctx, exchange_started);
    } else if (c.actor == "probe") {
      runner.probe(c);
    } else if (c.actor == "event") {
      arm_event(c, ctx, faults);
    } else if (c.actor == "tester" || c.actor == "connect" || c.actor == "impair") {
      run_tester_command(c, ctx);
      after_command(ctx, exchange_started);
    } else if (c.actor == "bottleneck") {
      run_bottleneck_command(c, ctx);
      after_command(ctx, exchange_started);
    } else if (c.actor == "let") {
      bind_value(c, ctx);
    } else if (c.actor == "check" || c.actor == "assume") {
      check_values(c, ctx);
    } else if (c.actor == "repeat") {
      pc = loops.enter(pc, ctx);
    } else if (c.actor == "end") {
      pc = loops.back_to_repeat(pc);
    } else {
      ctx.error(c.pos, "'" + c.actor + " " + c.name + "' is not supported yet by this engine");
    }
  }
}

// What the statements leave to judge: an armed fault whose frame never passed fails the
// test, and a capture that lost packets cannot prove a failure (inconclusive, never fail).
void close_verdict(TestContext& ctx, const FaultPort& faults, uint64_t capture_drops) {
  for (const auto& e : faults.unfired()) {
    ctx.fail({e.line, 1}, "event",
             "a frame with PSN " + std::to_string(e.psn) + " (tx " + std::to_string(e.tx) + ")",
             "none", "the frame this event acts on never passed");
  }
  auto& result = ctx.result;
  if (capture_drops != 0 && result.verdict != Verdict::kError) {
    result.verdict = Verdict::kInconc;
    result.reason = "the capture lost packets: the exchange cannot be judged";
  }
  if (result.verdict == Verdict::kNone) result.verdict = Verdict::kPass;
}

}  // namespace

report::TestResult run_test(const script::Script& script, DutPort& port, const Pixit& pixit,
                            const TestOptions& options) {
  report::TestResult result = describe(script);
  if (!applies(result, options)) return result;
  const auto started = std::chrono::steady_clock::now();
  if (auto ok = port.reset(); !ok) {
    result.verdict = Verdict::kError;
    result.reason = "DUT reset failed: " + ok.error();
    return result;
  }
  const uint64_t drops_before = port.capture_drops();
  // The chain from the engine to the DUT: driven traffic, the reference bottleneck (the
  // tester's side of it), then the fault events (they see every frame of the test), then the
  // trace checkers, which watch from the DUT's side.
  ExchangeRecorder* recorder = nullptr;
  TraceJudge judge(port, ms(pixit.tolerance_abs_ms));
  FaultPort faults(judge, [&](const FaultEvent& e, const std::vector<uint8_t>& f, uint64_t t) {
    if (recorder != nullptr) recorder->record_fault(e, f, t);
  });
  BottleneckPort bottleneck(faults);
  DrivenPort driven(bottleneck, [&](const std::vector<uint8_t>& f, uint64_t t, bool from_tester) {
    if (recorder != nullptr) recorder->record_driven(f, t, from_tester);
  });
  TestContext ctx{
      .script = script,
      .port = driven,
      .pixit = pixit,
      .seed = options.seed,
      .t0_ns = port.now_ns(),
      .last_event_ns = port.now_ns(),
      .result = result,
      .driven = &driven,
      .faults = &faults,
      .bottleneck = &bottleneck,
      .judges_ev_sets = options.pics.contains("ext.multipath") && options.pics.at("ext.multipath")};
  bind_parameters(ctx);
  for (const auto& [name, value] : options.dut_limits) ctx.symbols.set("limits." + name, value);
  ExchangeRecorder rec(ctx, options.capture_path);
  recorder = &rec;
  Runner runner(ctx, rec);
  run_statements(ctx, runner, faults);
  if (!ctx.aborted) runner.quiet_period(driven);
  if (!ctx.aborted) judge_trace(ctx, judge, options.clause_levels);
  close_verdict(ctx, faults, port.capture_drops() - drops_before);
  result.capture = options.capture_path;
  result.duration_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return result;
}

}  // namespace mr::engine
