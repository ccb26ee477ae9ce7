// Our builder against Scapy's: every packet of the Scapy corpora is rebuilt from the field
// values Scapy dissected (scapy_corpus.jsonl), with the builder computing the lengths, the
// IPv4 header checksum and the ICRC itself, and must equal Scapy's bytes exactly.
//
// Part II (TVer-1) frames are rebuilt from their MXH, SACKETH, CRETH, RSYNETH, SECH and
// SecTag fields like any other. Two of Scapy's conventions are mapped here, explicitly:
// SACKETH.sack_offset is signed in Scapy (-8) and the unsigned 16-bit field in our JSON
// (65528); SECH.htag and SecTag.tag are bytes in Scapy, hex strings in the .jsonl (JSON
// has no bytes), which packet_from_json reads as they are. A frame the expected line says
// the decoder refuses ("roce": false: a TVer-1 frame too short for its headers) has no
// complete field values to build from; those are counted, not built.
//
// Secure frames (SX = 1: SECH after the BTH, SecTag before the ICRC) are checked by tests of
// their own, so that what goes wrong with them is told apart from the rest.
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

// Scapy's values as our JSON writes them (see the top of this file).
nlohmann::json scapy_to_json(nlohmann::json j) {
  if (j.contains("SACKETH") && j["SACKETH"].contains("sack_offset")) {
    auto& v = j["SACKETH"]["sack_offset"];
    const int64_t signed_offset = v.get<int64_t>();
    v = static_cast<uint64_t>(static_cast<uint16_t>(signed_offset));
  }
  return j;
}

bool is_secure(const nlohmann::json& j) { return j.contains("SECH") || j.contains("SecTag"); }

enum class Frames { kNotSecure, kSecure };

struct Counts {
  size_t lines = 0;    // lines of the .jsonl (frames of the capture)
  size_t built = 0;    // frames rebuilt and compared
  size_t refused = 0;  // expected refused by the decoder: not built
  size_t ext = 0;      // of the built, TVer-1 (Part II) frames
};

Counts check_corpus(const std::string& pcap, const std::string& jsonl, Frames which) {
  Counts n;
  auto reader = io::CaptureReader::open(pcap);
  EXPECT_TRUE(reader) << reader.error().to_string();
  if (!reader) return n;
  std::ifstream lines(jsonl);
  EXPECT_TRUE(lines) << jsonl;
  std::string line;
  size_t mismatches = 0;
  while (std::getline(lines, line)) {
    auto f = reader->next();
    EXPECT_TRUE(f && *f) << "capture ends before " << jsonl << " does";
    if (!(f && *f)) break;
    const auto j = scapy_to_json(nlohmann::json::parse(line));
    ++n.lines;
    if (j.value("roce", true) == false) {
      ++n.refused;
      continue;
    }
    if (is_secure(j) != (which == Frames::kSecure)) continue;
    ++n.built;
    if (j["BTH"].value("version", 0) == 1) ++n.ext;
    auto owned = wire::packet_from_json(j);
    EXPECT_TRUE(owned) << "frame " << n.lines << ": " << owned.error();
    if (!owned) continue;
    // Headers Scapy has no class for travel as raw bytes in the plain corpus.
    if (j.contains("ext_raw")) {
      const auto raw = nlohmann::json{{"payload", j["ext_raw"]}};
      auto prefix = wire::packet_from_json(raw);
      EXPECT_TRUE(prefix);
      owned->payload.insert(owned->payload.begin(), prefix->payload.begin(), prefix->payload.end());
    }
    const auto built = wire::build_frame(owned->view());
    const auto& scapy = (*f)->data;
    if (!std::equal(built.begin(), built.end(), scapy.begin(), scapy.end())) {
      if (++mismatches <= 5) {
        std::string layers;
        for (const auto& l : j["layers"]) layers += " " + l.get<std::string>();
        ADD_FAILURE() << pcap << " frame " << n.lines << " (" << j.value("opcode_name", "") << ":"
                      << layers << ") differs\n  scapy: " << hex(scapy)
                      << "\n  ours:  " << hex(built);
      }
    }
  }
  EXPECT_EQ(mismatches, 0U) << "of " << n.built << " frames built";
  std::printf(
      "%s: %zu frames, %zu %s built (%zu of them TVer 1), %zu expected refused, not "
      "built; %zu differ\n",
      jsonl.c_str(), n.lines, n.built, which == Frames::kSecure ? "secure (SX = 1)" : "not secure",
      n.ext, n.refused, mismatches);
  return n;
}

TEST(ScapyBuilderOracle, RebuildsTheScapyCorpusByteForByte) {
  const auto n = check_corpus("tools/oracles/scapy_corpus.pcap", "tools/oracles/scapy_corpus.jsonl",
                              Frames::kNotSecure);
  EXPECT_EQ(n.lines, 10000U);
  EXPECT_GT(n.built, 9900U);
  EXPECT_EQ(n.ext, 0U) << "the base corpora draw no TVer 1 (it selects table 19.1)";
}

TEST(ScapyBuilderOracle, RebuildsTheExtendedCorpusByteForByte) {
  const auto n = check_corpus("tools/oracles/scapy_extended_corpus.pcap",
                              "tools/oracles/scapy_extended_corpus.jsonl", Frames::kNotSecure);
  EXPECT_EQ(n.lines, 5000U);
  EXPECT_GT(n.built, 4900U);
  EXPECT_EQ(n.ext, 0U) << "the base corpora draw no TVer 1 (it selects table 19.1)";
}

// The Part II corpus: MXH, SACKETH (every flag), CRETH, RSYNETH after every opcode of
// table 19.1, IPv4 and IPv6, with and without 802.1Q.
TEST(ScapyBuilderOracle, RebuildsTheExtCorpusByteForByte) {
  const auto n = check_corpus("tools/oracles/scapy_ext_corpus.pcap",
                              "tools/oracles/scapy_ext_corpus.jsonl", Frames::kNotSecure);
  EXPECT_EQ(n.lines, 4000U);
  EXPECT_EQ(n.refused, 0U);
  EXPECT_GT(n.built, 2400U);
  EXPECT_EQ(n.ext, n.built);
}

// Secure frames: SECH after the BTH, SecTag between the pad and the ICRC.
TEST(ScapyBuilderOracle, RebuildsTheSecureExtFramesByteForByte) {
  const auto n = check_corpus("tools/oracles/scapy_ext_corpus.pcap",
                              "tools/oracles/scapy_ext_corpus.jsonl", Frames::kSecure);
  EXPECT_GT(n.built, 1200U);
  EXPECT_EQ(n.ext, n.built);
}

// The spec's worked examples of section 27 (base and Part II, secure ones included): each
// rebuilt from its fields as Scapy read them, to the example's bytes.
TEST(ScapyBuilderOracle, RebuildsTheSpecsWorkedExamplesByteForByte) {
  const auto plain = check_corpus("tools/oracles/spec_examples.pcap",
                                  "tools/oracles/spec_examples.jsonl", Frames::kNotSecure);
  const auto secure = check_corpus("tools/oracles/spec_examples.pcap",
                                   "tools/oracles/spec_examples.jsonl", Frames::kSecure);
  EXPECT_EQ(plain.lines, 25U);
  EXPECT_EQ(plain.refused + secure.refused, 0U);
  EXPECT_EQ(plain.built + secure.built, plain.lines) << "every example is rebuilt";
  EXPECT_EQ(plain.ext + secure.ext, 15U) << "EX-E*, EX-R*, EX-S*, EX-C* are Part II";
  EXPECT_EQ(secure.built, 2U) << "EX-S1 and EX-S2";
}

}  // namespace
}  // namespace mr
