// Our builder against Scapy's: every packet of the Scapy corpora is rebuilt from the field
// values Scapy dissected (scapy_corpus.jsonl), with the builder computing the lengths, the
// IPv4 header checksum and the ICRC itself, and must equal Scapy's bytes exactly.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "reference/io/capture_reader.h"
#include "reference/wire/frame_builder.h"
#include "reference/wire/packet_json.h"

namespace mr {
namespace {

std::string hex(std::span<const uint8_t> b) {
  std::string s;
  char buf[3];
  for (uint8_t x : b) {
    std::snprintf(buf, sizeof buf, "%02x", x);
    s += buf;
  }
  return s;
}

void check_corpus(const std::string& pcap, const std::string& jsonl, size_t expected_frames) {
  auto reader = io::CaptureReader::open(pcap);
  ASSERT_TRUE(reader) << reader.error().to_string();
  std::ifstream lines(jsonl);
  ASSERT_TRUE(lines) << jsonl;
  std::string line;
  size_t frames = 0;
  size_t mismatches = 0;
  while (std::getline(lines, line)) {
    auto f = reader->next();
    ASSERT_TRUE(f && *f) << "capture ends before " << jsonl << " does";
    const auto j = nlohmann::json::parse(line);
    ++frames;
    auto owned = wire::packet_from_json(j);
    ASSERT_TRUE(owned) << "frame " << frames << ": " << owned.error();
    // Headers Scapy has no class for travel as raw bytes in the plain corpus.
    if (j.contains("ext_raw")) {
      const auto raw = nlohmann::json{{"payload", j["ext_raw"]}};
      auto prefix = wire::packet_from_json(raw);
      ASSERT_TRUE(prefix);
      owned->payload.insert(owned->payload.begin(), prefix->payload.begin(), prefix->payload.end());
    }
    const auto built = wire::build_frame(owned->view());
    const auto& scapy = (*f)->data;
    if (!std::equal(built.begin(), built.end(), scapy.begin(), scapy.end())) {
      if (++mismatches <= 5) {
        ADD_FAILURE() << pcap << " frame " << frames << " differs\n  scapy: " << hex(scapy)
                      << "\n  ours:  " << hex(built);
      }
    }
  }
  EXPECT_EQ(frames, expected_frames);
  EXPECT_EQ(mismatches, 0U) << "of " << frames << " frames";
}

TEST(ScapyBuilderOracle, RebuildsTheScapyCorpusByteForByte) {
  check_corpus("tools/oracles/scapy_corpus.pcap", "tools/oracles/scapy_corpus.jsonl", 10000);
}

TEST(ScapyBuilderOracle, RebuildsTheExtendedCorpusByteForByte) {
  check_corpus("tools/oracles/scapy_extended_corpus.pcap",
               "tools/oracles/scapy_extended_corpus.jsonl", 5000);
}

}  // namespace
}  // namespace mr
