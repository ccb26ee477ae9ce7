// Secure mode's per-packet cost (spec section 19.4), beside its anchor in the same run:
//   BM_SealPacket / BM_OpenPacket: the AEAD of one packet (a 56-byte header block as
//     additional data, the payload encrypted or decrypted in place), bytes of payload/s;
//   BM_Memcpy: a copy of the same payload, the bound a data path that touches each byte once
//     more could not beat.
// The ratio seal/memcpy at a size is what sealing costs the lean data path (issue 24).
#include <benchmark/benchmark.h>

#include <cstring>
#include <vector>

#include "reference/crypto/aes256_gcm.h"

namespace {

using mr::crypto::Aes256Gcm;

void BM_SealPacket(benchmark::State& state) {
  Aes256Gcm gcm(Aes256Gcm::Key{1, 2, 3});
  std::vector<uint8_t> header(56, 0x11);
  std::vector<uint8_t> payload(static_cast<size_t>(state.range(0)), 0x22);
  Aes256Gcm::Nonce nonce{};
  uint64_t pn = 0;
  for (auto _ : state) {
    ++pn;
    std::memcpy(nonce.data() + 4, &pn, sizeof pn);
    benchmark::DoNotOptimize(gcm.seal(nonce, header, payload));
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * state.range(0));
}
BENCHMARK(BM_SealPacket)->Arg(64)->Arg(1024)->Arg(4096);

void BM_OpenPacket(benchmark::State& state) {
  Aes256Gcm gcm(Aes256Gcm::Key{1, 2, 3});
  std::vector<uint8_t> header(56, 0x11);
  const std::vector<uint8_t> plain(static_cast<size_t>(state.range(0)), 0x22);
  std::vector<uint8_t> sealed = plain;
  const Aes256Gcm::Nonce nonce{};
  const Aes256Gcm::Tag tag = gcm.seal(nonce, header, sealed);
  std::vector<uint8_t> work(sealed.size());
  for (auto _ : state) {
    std::memcpy(work.data(), sealed.data(), sealed.size());  // open decrypts in place
    benchmark::DoNotOptimize(gcm.open(nonce, header, work, tag));
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * state.range(0));
}
BENCHMARK(BM_OpenPacket)->Arg(64)->Arg(1024)->Arg(4096);

void BM_Memcpy(benchmark::State& state) {
  const std::vector<uint8_t> src(static_cast<size_t>(state.range(0)), 0x22);
  std::vector<uint8_t> dst(src.size());
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), src.size());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * state.range(0));
}
BENCHMARK(BM_Memcpy)->Arg(64)->Arg(1024)->Arg(4096);

}  // namespace

BENCHMARK_MAIN();
