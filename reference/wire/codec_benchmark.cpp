// Codec benchmarks (./metaroce bench codec prints them beside tshark and Scapy).
//
// BM_DecodeAndVerify: decode every frame of a capture and verify its ICRC; items/s is
//   packets per second on one core. The capture comes from METAROCE_BENCH_CAPTURE.
// BM_Icrc / BM_Memcpy: ICRC throughput against memcpy of the same sizes, in bytes/s; the
//   64 MiB memcpy is the machine's memory bandwidth anchor.
// BM_IcrcPacket: the whole ICRC of an IPv4 RoCE packet of that size (masked headers, LRH
//   seed, the rest), the per-packet work of a receiver.
// BM_IsalCrc32: ISA-L's crc32_gzip_refl over the same sizes, the anchor a CRC-32 over bytes
//   is measured against (a library made for this, VPCLMULQDQ where the CPU has it).
#include <benchmark/benchmark.h>
#include <isa-l/crc.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <span>
#include <vector>

#include "reference/io/capture_reader.h"
#include "reference/wire/frame_decoder.h"
#include "reference/wire/icrc.h"

namespace {

// Frames stay in the memory-mapped file, in file order, as the decoder meets them when it
// streams a capture.
struct Capture {
  std::optional<mr::io::CaptureReader> reader;  // owns the mapping the spans point into
  std::vector<std::span<const uint8_t>> frames;
  std::string error;
};

const Capture& capture() {
  static const Capture c = [] {
    Capture c;
    const char* path = std::getenv("METAROCE_BENCH_CAPTURE");
    if (!path) {
      c.error = "set METAROCE_BENCH_CAPTURE to a pcap/pcapng file";
      return c;
    }
    auto r = mr::io::CaptureReader::open(path);
    if (!r) {
      c.error = r.error().to_string();
      return c;
    }
    c.reader.emplace(std::move(*r));
    for (;;) {
      auto f = c.reader->next();
      if (!f) {
        c.error = f.error().to_string();
        break;
      }
      if (!*f) break;
      c.frames.push_back((*f)->data);
    }
    return c;
  }();
  return c;
}

void BM_DecodeAndVerify(benchmark::State& state) {
  const Capture& c = capture();
  if (!c.error.empty() || c.frames.empty()) {
    state.SkipWithError(c.error.empty() ? "empty capture" : c.error.c_str());
    return;
  }
  size_t bytes = 0;
  for (const auto& f : c.frames) bytes += f.size();
  uint64_t bad = 0;
  mr::wire::DecodedFrame d;
  for (auto _ : state) {
    for (const auto& f : c.frames) {
      const bool ok = mr::wire::decode_frame_into(f, mr::wire::Framing::kEthernet, d).has_value();
      const auto* roce = std::get_if<mr::wire::DecodedRoce>(&d);
      bad += (!ok || roce == nullptr || !roce->icrc_ok());
      benchmark::DoNotOptimize(roce);
    }
  }
  if (bad != 0) state.SkipWithError("some frames did not decode with a valid ICRC");
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * c.frames.size()));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
  state.counters["frames"] = static_cast<double>(c.frames.size());
}
BENCHMARK(BM_DecodeAndVerify)->Unit(benchmark::kMillisecond)->MinTime(2.0);

void BM_Icrc(benchmark::State& state) {
  std::vector<uint8_t> buf(static_cast<size_t>(state.range(0)), 0xa5);
  for (auto _ : state) benchmark::DoNotOptimize(mr::wire::IcrcCalculator::update(0xffffffff, buf));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * buf.size()));
}
BENCHMARK(BM_Icrc)->Arg(64)->Arg(256)->Arg(1024)->Arg(4096)->Arg(64 << 20);

void BM_IcrcPacket(benchmark::State& state) {
  std::vector<uint8_t> pkt(static_cast<size_t>(state.range(0)), 0xa5);
  pkt[0] = 0x45;  // IPv4, no options
  for (auto _ : state) benchmark::DoNotOptimize(mr::wire::IcrcCalculator::icrc(pkt));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * pkt.size()));
}
BENCHMARK(BM_IcrcPacket)->Arg(64)->Arg(256)->Arg(1024)->Arg(4096);

void BM_IsalCrc32(benchmark::State& state) {
  std::vector<uint8_t> buf(static_cast<size_t>(state.range(0)), 0xa5);
  for (auto _ : state) benchmark::DoNotOptimize(crc32_gzip_refl(0, buf.data(), buf.size()));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * buf.size()));
}
BENCHMARK(BM_IsalCrc32)->Arg(64)->Arg(256)->Arg(1024)->Arg(4096)->Arg(64 << 20);

void BM_IcrcTables(benchmark::State& state) {
  std::vector<uint8_t> buf(static_cast<size_t>(state.range(0)), 0xa5);
  for (auto _ : state) {
    benchmark::DoNotOptimize(mr::wire::IcrcCalculator::update_tables(0xffffffff, buf));
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * buf.size()));
}
BENCHMARK(BM_IcrcTables)->Arg(4096);

void BM_Memcpy(benchmark::State& state) {
  std::vector<uint8_t> src(static_cast<size_t>(state.range(0)), 0xa5);
  std::vector<uint8_t> dst(src.size());
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), src.size());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * src.size()));
}
BENCHMARK(BM_Memcpy)->Arg(64)->Arg(1024)->Arg(4096)->Arg(64 << 20);

}  // namespace

BENCHMARK_MAIN();
