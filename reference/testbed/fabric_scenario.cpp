#include "reference/testbed/fabric_scenario.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>

#include "reference/transport/requester.h"

namespace mr::testbed {
namespace {

std::vector<uint8_t> pattern(uint64_t bytes, uint64_t seed) {
  std::vector<uint8_t> v(bytes);
  std::mt19937_64 g(seed);
  for (size_t i = 0; i < v.size(); i += 8) {
    const uint64_t x = g();
    for (size_t j = 0; j < 8 && i + j < v.size(); ++j)
      v[i + j] = static_cast<uint8_t>(x >> (8 * j));
  }
  return v;
}

struct FlowState {
  RcConnection conn;
  uint32_t messages = 0;
  uint32_t completions = 0;
  bool posted = false;
};

// The request PSNs of `qp` its peer has acknowledged so far: below the cumulative point, and
// for an Ext QP the SACKed ones beyond it.
uint64_t acknowledged_psns(const transport::QueuePair& qp) {
  if (qp.ext) {
    const auto sent = wire::psn_diff(qp.ext->sent.next_psn(), qp.attr.sq_psn);
    return static_cast<uint64_t>(std::max(0, sent)) - qp.ext->sent.outstanding_count();
  }
  return static_cast<uint64_t>(std::max(0, wire::psn_diff(qp.acked_psn, qp.attr.sq_psn) + 1));
}

}  // namespace

uint64_t ScenarioOutcome::percentile_finish_ns(double p) const {
  std::vector<uint64_t> t;
  for (const FlowOutcome& f : flows)
    if (f.completed) t.push_back(f.finish_ns);
  if (t.empty()) return 0;
  std::sort(t.begin(), t.end());
  const auto rank = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(t.size())));
  return t[std::clamp<size_t>(rank, 1, t.size()) - 1];
}

Expected<ScenarioOutcome, std::string> run_scenario(const Scenario& s) {
  const auto wall_start = std::chrono::steady_clock::now();
  io::fabric::FabricConfig fabric = s.fabric;
  fabric.addressing.shared = true;
  for (size_t i = 0; i < s.flows.size(); ++i) {
    const Flow& f = s.flows[i];
    const std::string field = "flows[" + std::to_string(i) + "]";
    if (f.src >= fabric.endpoints || f.dst >= fabric.endpoints || f.src == f.dst)
      return Unexpected<std::string>(field + ": src " + std::to_string(f.src) + " and dst " +
                                     std::to_string(f.dst) + " must be two of the " +
                                     std::to_string(fabric.endpoints) + " endpoints");
    if (f.bytes == 0) return Unexpected<std::string>(field + ".bytes: 0 moves nothing");
  }
  auto made = FabricBed::create(fabric, {.mxcap = s.mxcap, .ext = s.ext, .seed = fabric.seed});
  if (!made) return Unexpected<std::string>(made.error());
  FabricBed& bed = **made;

  std::vector<FlowState> flows(s.flows.size());
  // Completions by (endpoint, QPN): the flow whose sender QP it is.
  std::vector<std::vector<std::pair<uint32_t, size_t>>> by_endpoint(fabric.endpoints);
  ScenarioOutcome out;
  out.flows.resize(s.flows.size());
  for (size_t i = 0; i < s.flows.size(); ++i) {
    const Flow& f = s.flows[i];
    ConnectOptions o = s.connection;
    o.region_bytes = f.bytes;
    auto c = bed.connect(f.src, f.dst, o);
    if (!c) return Unexpected<std::string>("flows[" + std::to_string(i) + "]: " + c.error());
    flows[i].conn = *c;
    out.needed_bytes += f.bytes;
    flows[i].messages = static_cast<uint32_t>((f.bytes + s.message_bytes - 1) / s.message_bytes);
    by_endpoint[f.src].emplace_back(c->qp_a, i);
    // The source: src's region for a WRITE, dst's for a READ.
    const bool read = s.opcode == transport::SendOpcode::kRead;
    const auto data = pattern(f.bytes, fabric.seed * 1'000'003 + i);
    const memory::MrInfo& source = read ? c->mr_b : c->mr_a;
    if (auto ok = bed.device(read ? f.dst : f.src).memory().write(source.lkey, source.va, data);
        !ok)
      return Unexpected<std::string>("flows[" + std::to_string(i) + "]: " + ok.error());
    for (uint64_t offset = 0; offset < f.bytes; offset += s.message_bytes) {
      const auto len = static_cast<uint32_t>(std::min<uint64_t>(s.message_bytes, f.bytes - offset));
      out.needed_frames += transport::packets_for(len, o.path_mtu);
    }
  }

  if (s.failure) {
    const uint32_t planes = static_cast<uint32_t>(fabric.planes.size());
    const uint32_t plane = s.failure->plane.value_or(
        flows.empty() ? 0 : bed.device(flows[0].conn.a).base_plane(flows[0].conn.qp_a));
    if (plane >= planes)
      return Unexpected<std::string>("failure.plane: " + std::to_string(plane) +
                                     " is not one of the " + std::to_string(planes) + " planes");
    const io::fabric::PlaneTopology& t = fabric.planes[plane];
    std::vector<io::fabric::BlackHole> holes;
    if (t.single_switch()) holes.push_back({.plane = plane, .from_ns = s.failure->at_ns});
    for (uint32_t leaf = 0; leaf < t.leaves; ++leaf) {
      for (uint32_t spine = 0; spine < t.spines; ++spine) {
        holes.push_back(
            {.plane = plane,
             .cable = io::fabric::CableRef{plane, io::fabric::CableTier::kSpine, leaf, spine},
             .from_ns = s.failure->at_ns});
      }
    }
    for (const auto& hole : holes) {
      if (auto ok = bed.fabric().add_black_hole(hole); !ok)
        return Unexpected<std::string>("failure: " + ok.error().to_string());
    }
    out.failed_plane = plane;
  }

  auto post_due = [&](uint64_t now) {
    for (size_t i = 0; i < s.flows.size(); ++i) {
      FlowState& st = flows[i];
      const Flow& f = s.flows[i];
      if (st.posted || f.start_ns > now) continue;
      st.posted = true;
      for (uint32_t m = 0; m < st.messages; ++m) {
        const uint64_t offset = uint64_t{m} * s.message_bytes;
        const auto len =
            static_cast<uint32_t>(std::min<uint64_t>(s.message_bytes, f.bytes - offset));
        transport::SendWr w;
        w.wr_id = (uint64_t{i} << 32) | m;
        w.opcode = s.opcode;
        w.sg_list = {transport::Sge{st.conn.mr_a.va + offset, len, st.conn.mr_a.lkey}};
        w.remote_addr = st.conn.mr_b.va + offset;
        w.rkey = st.conn.mr_b.rkey;
        if (!bed.device(f.src).post_send(st.conn.qp_a, w)) {
          out.flows[i].failed = true;
          break;
        }
      }
      bed.touch(f.src);
    }
  };
  size_t settled = 0;
  bed.after_run = [&](uint32_t e, uint64_t now) {
    if (by_endpoint[e].empty()) return;
    auto polled = bed.device(e).poll_cq(bed.cq(e), 1 << 16);
    if (!polled) return;
    for (const transport::Completion& c : *polled) {
      const size_t i = c.wr_id >> 32;
      if (i >= flows.size() || c.qp_num != flows[i].conn.qp_a) continue;
      FlowOutcome& o = out.flows[i];
      if (o.completed || o.failed) continue;
      if (c.status != transport::WcStatus::kSuccess) {
        o.failed = true;
        ++settled;
        continue;
      }
      if (++flows[i].completions == flows[i].messages) {
        o.completed = true;
        o.finish_ns = now - s.flows[i].start_ns;
        ++settled;
      }
    }
  };
  std::vector<uint32_t> sources;
  for (const Flow& f : s.flows) sources.push_back(f.src);
  std::sort(sources.begin(), sources.end());
  sources.erase(std::unique(sources.begin(), sources.end()), sources.end());
  // Every boundary the clock passed gets the state of the first step at or after it: between
  // steps nothing changes.
  auto sample = [&] {
    if (s.timeline_ns == 0) return;
    while (uint64_t{out.timeline.size()} * s.timeline_ns <= bed.now_ns()) {
      uint64_t bytes = 0;
      for (size_t i = 0; i < flows.size(); ++i) {
        const transport::QueuePair* qp = bed.device(flows[i].conn.a).qp(flows[i].conn.qp_a);
        if (qp == nullptr) continue;
        bytes +=
            std::min<uint64_t>(s.flows[i].bytes, acknowledged_psns(*qp) * s.connection.path_mtu);
      }
      out.timeline.push_back(bytes);
      if (!out.failed_plane) continue;  // the next boundary, if the clock passed it too
      uint64_t into_failed = 0;
      for (const uint32_t src : sources) {
        into_failed +=
            bed.fabric()
                .counters(
                    {.plane = *out.failed_plane, .tier = io::fabric::CableTier::kHost, .a = src},
                    io::fabric::LinkDirection::kUp)
                .frames_sent;
      }
      out.failed_plane_timeline.push_back(into_failed);
    }
  };
  // Flows that start later are posted when the clock reaches them.
  std::vector<uint64_t> starts;
  for (const Flow& f : s.flows) starts.push_back(f.start_ns);
  std::sort(starts.begin(), starts.end());
  starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
  uint64_t now = 0;
  for (size_t k = 0; k < starts.size(); ++k) {
    if (starts[k] > now) {
      bed.run_until(
          [&] {
            sample();
            return false;
          },
          starts[k] - now);
    }
    now = std::max(now, bed.now_ns());
    post_due(starts[k]);
  }
  bed.run_until(
      [&] {
        sample();
        return settled == flows.size();
      },
      s.max_ns > bed.now_ns() ? s.max_ns - bed.now_ns() : 0);

  for (size_t i = 0; i < s.flows.size(); ++i) {
    FlowOutcome& o = out.flows[i];
    const Flow& f = s.flows[i];
    if (o.failed) {
      ++out.failed;
      continue;
    }
    if (!o.completed) continue;
    ++out.completed;
    out.delivered_bytes += f.bytes;
    out.last_finish_ns = std::max(out.last_finish_ns, f.start_ns + o.finish_ns);
    const bool read = s.opcode == transport::SendOpcode::kRead;
    const memory::MrInfo& destination = read ? flows[i].conn.mr_a : flows[i].conn.mr_b;
    const auto placed =
        bed.device(read ? f.src : f.dst).memory().read(destination.lkey, destination.va, f.bytes);
    o.data_ok = placed && *placed == pattern(f.bytes, fabric.seed * 1'000'003 + i);
    if (!o.data_ok) ++out.data_mismatches;
  }
  out.request_frames = bed.request_frames();
  for (uint32_t p = 0; p < fabric.planes.size(); ++p) {
    const io::fabric::LinkCounters c = bed.fabric().plane_counters(p);
    out.fabric_drops += c.dropped();
    out.overflow_drops += c.dropped(io::fabric::DropCause::kQueueOverflow);
    out.fabric_trims += c.trimmed;
  }
  for (uint32_t e = 0; e < fabric.endpoints; ++e) {
    const transport::DeviceCounters& c = bed.device(e).counters();
    out.trim_naks += c.ext_trim_naks_sent;
    out.credit_raises += c.ext_credit_raises;
    out.credit_packets += c.ext_credit_packets_sent;
  }
  out.fabric_events = bed.fabric().events_run();
  out.steps = bed.steps();
  for (uint32_t e = 0; e < fabric.endpoints; ++e) {
    for (const auto& [qpn, i] : by_endpoint[e]) {
      const transport::QueuePair* qp = bed.device(e).qp(qpn);
      if (qp == nullptr || !qp->ext) continue;
      out.ev_assumed_bad += qp->ext->evs.counters().ev_assumed_bad;
      if (const uint64_t rtt = qp->ext->rto.min_rtt_ns(); rtt > 0)
        out.min_rtt_ns = out.min_rtt_ns == 0 ? rtt : std::min(out.min_rtt_ns, rtt);
    }
  }
  out.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return out;
}

}  // namespace mr::testbed
