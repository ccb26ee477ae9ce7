// Transport benchmarks (./metaroce bench transport prints them beside their anchors).
//
// BM_WriteGoodput: RDMA WRITEs of 64 KiB at path MTU 4096 between two reference devices
//   wired back to back in memory (frames handed over directly, no link), one core; bytes/s
//   of payload delivered, beside BM_Memcpy64K, the machine's memcpy of the same size, and
//   beside the bound the work sets: each payload byte copied twice (region to frame, frame to
//   region) and covered by two ICRCs (sent, checked), at BM_Memcpy4K's and BM_Icrc4K's rates
//   for one packet's 4 KiB: bound = 1 / (2 / memcpy + 2 / ICRC).
// BM_SendMessageRate: 8-byte SENDs, messages/s.
// BM_QpScaling/N: the same 8-byte SEND stream spread round-robin over N connected QPs;
//   the per-message cost must stay flat from 1 to 10,000 QPs.
// BM_QpLookup/N: only the QPN lookup the data path makes per packet, round-robin over the
//   same N QPs (the QP itself is not touched), so the lookup's own cost is seen apart from
//   BM_QpLookupAndTouch/N, which also reads the QP's send state as the data path does: the
//   difference is the cache misses of touching N QPs' state, not the lookup.
#include <benchmark/benchmark.h>
#include <malloc.h>

#include <cstring>
#include <memory>
#include <vector>

#include "reference/transport/device.h"
#include "reference/wire/icrc.h"

namespace mr::transport {
namespace {

constexpr uint32_t kAllAccess = memory::kLocalWrite | memory::kRemoteWrite | memory::kRemoteRead;

struct Side {
  std::unique_ptr<Device> dev;
  uint32_t pd = 0;
  uint32_t cq = 0;
  memory::MrInfo mr;
  std::vector<uint32_t> qpns;
};

struct Bench {
  Side a;
  Side b;
  uint64_t now = 1'000'000;

  // `ext`: both devices offer MXCAP and every QP runs in extension mode (Part II).
  Bench(uint32_t mtu, size_t qps, uint64_t mr_bytes, bool ext = false) {
    int host = 1;
    for (Side* s : {&a, &b}) {
      DeviceConfig c;
      if (ext) c.mxcap = wire::Mxcap{};
      c.mac = *wire::MacAddress::parse(host == 1 ? "02:00:00:00:00:01" : "02:00:00:00:00:02");
      c.ip = *wire::Ipv4Address::parse(host == 1 ? "198.18.0.1" : "198.18.0.2");
      c.seed = static_cast<uint64_t>(host++);
      s->dev = std::make_unique<Device>(c);
      s->pd = *s->dev->memory().alloc_pd();
      s->cq = *s->dev->create_cq(1 << 20);
      s->mr = *s->dev->memory().reg_mr(s->pd, mr_bytes, kAllAccess);
      for (size_t i = 0; i < qps; ++i) {
        QpInitAttributes init;
        init.pd = s->pd;
        init.send_cq = init.recv_cq = s->cq;
        s->qpns.push_back(*s->dev->create_qp(init));
      }
    }
    for (size_t i = 0; i < qps; ++i) {
      connect(a, b, i, mtu);
      connect(b, a, i, mtu);
    }
  }

  static void connect(Side& self, Side& peer, size_t i, uint32_t mtu) {
    QpAttributes attr;
    attr.state = QpState::kInit;
    attr.access_flags = kQpRemoteWrite | kQpRemoteRead;
    (void)self.dev->modify_qp(self.qpns[i], attr, kAttrState | kAttrPkey | kAttrAccessFlags);
    attr.state = QpState::kRtr;
    attr.path_mtu = mtu;
    attr.av.smac = self.dev->config().mac;
    attr.av.dmac = peer.dev->config().mac;
    attr.av.sip = self.dev->config().ip;
    attr.av.dip = peer.dev->config().ip;
    attr.dest_qpn = peer.qpns[i];
    attr.peer_mxcap = peer.dev->config().mxcap;
    (void)self.dev->modify_qp(self.qpns[i], attr,
                              kAttrState | kAttrPathMtu | kAttrAddress | kAttrDestQpn | kAttrRqPsn |
                                  kAttrMaxDestRdAtomic | kAttrMinRnrTimer | kAttrPeerMxcap);
    attr.state = QpState::kRts;
    (void)self.dev->modify_qp(
        self.qpns[i], attr,
        kAttrState | kAttrSqPsn | kAttrTimeout | kAttrRetryCnt | kAttrRnrRetry | kAttrMaxRdAtomic);
  }

  // Moves frames both ways until neither device has anything left to send.
  void pump() {
    for (int round = 0; round < 1'000'000; ++round) {
      a.dev->advance(now);
      auto out_a = a.dev->take_outbox();
      for (auto& f : out_a) b.dev->receive(f, now);
      auto out_b = b.dev->take_outbox();
      for (auto& f : out_b) a.dev->receive(f, now);
      const bool idle = out_a.empty() && out_b.empty();
      // Their buffers carry the next frames, as a NIC's transmit ring does.
      a.dev->recycle(out_a);
      b.dev->recycle(out_b);
      if (idle && !a.dev->has_work()) return;
    }
  }

  size_t drain(Side& s) { return s.dev->poll_cq(s.cq, 1 << 20)->size(); }
};

void write_goodput(benchmark::State& state, bool ext) {
  constexpr uint32_t kLen = 64 * 1024;
  constexpr int kBatch = 16;
  Bench bench(4096, 1, 4 << 20, ext);
  SendWr wr;
  wr.opcode = SendOpcode::kWrite;
  wr.sg_list = {Sge{bench.a.mr.va, kLen, bench.a.mr.lkey}};
  wr.remote_addr = bench.b.mr.va;
  wr.rkey = bench.b.mr.rkey;
  for (auto _ : state) {
    for (int i = 0; i < kBatch; ++i) (void)bench.a.dev->post_send(bench.a.qpns[0], wr);
    bench.pump();
    if (bench.drain(bench.a) != kBatch) state.SkipWithError("writes did not complete");
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * kBatch * kLen);
}

void BM_WriteGoodput(benchmark::State& state) { write_goodput(state, false); }
BENCHMARK(BM_WriteGoodput)->Unit(benchmark::kMillisecond);

// The same WRITEs on an Ext QP: MXH, per-PSN records, SACK ACKs.
void BM_ExtWriteGoodput(benchmark::State& state) { write_goodput(state, true); }
BENCHMARK(BM_ExtWriteGoodput)->Unit(benchmark::kMillisecond);

void BM_Memcpy64K(benchmark::State& state) {
  std::vector<uint8_t> src(64 * 1024, 1);
  std::vector<uint8_t> dst(src.size());
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), src.size());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * src.size()));
}
BENCHMARK(BM_Memcpy64K);

// One packet's payload copy, from a 64 KiB region into a frame-sized buffer, the region walked
// as the WRITE walks it.
void BM_Memcpy4K(benchmark::State& state) {
  std::vector<uint8_t> region(64 * 1024, 1);
  std::vector<uint8_t> frame(4096);
  size_t at = 0;
  for (auto _ : state) {
    std::memcpy(frame.data(), region.data() + at, frame.size());
    at = (at + frame.size()) % region.size();
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * frame.size()));
}
BENCHMARK(BM_Memcpy4K);

// One packet's ICRC over its 4 KiB payload (with the headers, 4,150 bytes: counted as 4 KiB).
void BM_Icrc4K(benchmark::State& state) {
  std::vector<uint8_t> packet(4096 + 54, 1);
  for (auto _ : state) {
    benchmark::DoNotOptimize(wire::IcrcCalculator::icrc(std::span(packet).subspan(14)));
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * 4096));
}
BENCHMARK(BM_Icrc4K);

void send_stream(benchmark::State& state, size_t qps, bool ext = false) {
  constexpr int kBatch = 256;
  const size_t heap_before = mallinfo2().uordblks;
  Bench bench(1024, qps, 1 << 20, ext);
  // Heap per connected QP (both ends' QP state, without the fixed memory regions).
  const double per_qp =
      static_cast<double>(mallinfo2().uordblks - heap_before - 2 * (1 << 20)) / (2.0 * qps);
  SendWr wr;
  wr.opcode = SendOpcode::kSend;
  wr.sg_list = {Sge{bench.a.mr.va, 8, bench.a.mr.lkey}};
  RecvWr rwr{0, {Sge{bench.b.mr.va, 64, bench.b.mr.lkey}}};
  // Every QP carries one message before the clock starts: its queues are allocated on first
  // use, a cost of set-up (paid once per QP), not of each message.
  for (size_t q = 0; q < qps; ++q) {
    (void)bench.b.dev->post_recv(bench.b.qpns[q], rwr);
    (void)bench.a.dev->post_send(bench.a.qpns[q], wr);
    if (q % kBatch == kBatch - 1 || q + 1 == qps) {
      bench.pump();
      bench.drain(bench.a);
      bench.drain(bench.b);
    }
  }
  // The same after that message: each queue holds its first ring.
  const double per_used_qp =
      static_cast<double>(mallinfo2().uordblks - heap_before - 2 * (1 << 20)) / (2.0 * qps);
  size_t next = 0;
  for (auto _ : state) {
    for (int i = 0; i < kBatch; ++i) {
      const size_t q = next++ % qps;
      (void)bench.b.dev->post_recv(bench.b.qpns[q], rwr);
      (void)bench.a.dev->post_send(bench.a.qpns[q], wr);
    }
    bench.pump();
    if (bench.drain(bench.a) != kBatch || bench.drain(bench.b) != kBatch)
      state.SkipWithError("sends did not complete");
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * kBatch);
  state.counters["heap_bytes_per_qp"] = per_qp;
  state.counters["heap_bytes_per_used_qp"] = per_used_qp;
  // Frames both ways per message (base: 2, the SEND and its ACK, at every QP count), so that a
  // difference in rate between QP counts is seen not to be protocol work. An Ext QP that
  // carries 256 SENDs of a batch acknowledges them 8 at a time (1.125) and one that carries
  // one SEND per batch acknowledges it alone (2): its per-QP cost is the frame rate's.
  const auto frames = bench.a.dev->counters().sent_pkts + bench.b.dev->counters().sent_pkts;
  state.counters["frames_per_message"] =
      static_cast<double>(frames) / (static_cast<double>(state.iterations()) * kBatch);
  state.counters["frames"] =
      benchmark::Counter(static_cast<double>(frames), benchmark::Counter::kIsRate);
}

void BM_SendMessageRate(benchmark::State& state) { send_stream(state, 1); }
BENCHMARK(BM_SendMessageRate);

void BM_QpScaling(benchmark::State& state) {
  send_stream(state, static_cast<size_t>(state.range(0)));
}
BENCHMARK(BM_QpScaling)->Arg(1)->Arg(1000)->Arg(10000)->Arg(100000);

// Ext QPs: the per-message cost as their number grows, and the heap of a connected Ext QP
// (its ExtQpState; the sender's records and the receiver's window grow with use).
void BM_ExtQpScaling(benchmark::State& state) {
  send_stream(state, static_cast<size_t>(state.range(0)), true);
}
BENCHMARK(BM_ExtQpScaling)->Arg(1)->Arg(1000)->Arg(10000)->Arg(100000);

// Round-robin lookups of B's QPNs, as its receive path makes them for A's packets.
template <bool kTouch>
void qp_lookups(benchmark::State& state) {
  const auto qps = static_cast<size_t>(state.range(0));
  Bench bench(1024, qps, 4096);
  const Device& dev = *bench.b.dev;
  const std::vector<uint32_t>& qpns = bench.b.qpns;
  size_t next = 0;
  for (auto _ : state) {
    const QueuePair* qp = dev.qp(qpns[next]);
    if constexpr (kTouch) {
      benchmark::DoNotOptimize(qp->next_psn + qp->epsn + qp->attr.dest_qpn);
    } else {
      benchmark::DoNotOptimize(qp);
    }
    if (++next == qps) next = 0;
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}

void BM_QpLookup(benchmark::State& state) { qp_lookups<false>(state); }
BENCHMARK(BM_QpLookup)->Arg(1)->Arg(1000)->Arg(10000);

void BM_QpLookupAndTouch(benchmark::State& state) { qp_lookups<true>(state); }
BENCHMARK(BM_QpLookupAndTouch)->Arg(1)->Arg(1000)->Arg(10000);

}  // namespace
}  // namespace mr::transport

BENCHMARK_MAIN();
