#include "harness/replay/script_from_capture.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "harness/dut/embedded/embedded_reference_port.h"
#include "harness/engine/pixit.h"
#include "harness/engine/test_runner.h"
#include "harness/replay/recorded_connection.h"
#include "harness/report/results.h"
#include "harness/script/parser.h"
#include "reference/wire/aeth_syndrome.h"
#include "reference/wire/frame_builder.h"
#include "reference/wire/frame_decoder.h"
#include "reference/wire/opcode.h"

namespace mr::replay {
namespace {

using wire::RocePacket;

// A packet of the connection 198.18.0.2 (QPN 0x11) -> 198.18.0.1 (QPN 0x123), built and
// decoded by the codec, so that its ICRC is judged as a capture's would be.
struct Packet {
  bool from_requester = true;
  uint8_t opcode = wire::kOpRcSendOnly;
  uint32_t psn = 0x100;
  size_t payload = 8;
  bool ackreq = true;
  bool ipv6 = false;
  std::optional<wire::Dot1Q> vlan;
  bool break_icrc = false;
  bool ext = false;     // a Part II packet: TVer 1 with the MXH (requests) or SACKETH (ACKs)
  uint8_t fill = 0x5a;  // every payload byte
  uint32_t msn = 1;     // an answer's AETH MSN
};

RecordedPacket recorded(const Packet& in, uint64_t frame_number) {
  RocePacket p;
  if (in.ipv6) {
    wire::Ipv6 ip;
    ip.src = *wire::Ipv6Address::parse(in.from_requester ? "2001:db8::2" : "2001:db8::1");
    ip.dst = *wire::Ipv6Address::parse(in.from_requester ? "2001:db8::1" : "2001:db8::2");
    p.ip = ip;
  } else {
    wire::Ipv4 ip;
    ip.src = *wire::Ipv4Address::parse(in.from_requester ? "198.18.0.2" : "198.18.0.1");
    ip.dst = *wire::Ipv4Address::parse(in.from_requester ? "198.18.0.1" : "198.18.0.2");
    p.ip = ip;
  }
  // The Ether and 802.1Q types name what follows, as on the wire.
  const uint16_t ip_type = in.ipv6 ? wire::kEtherTypeIpv6 : wire::kEtherTypeIpv4;
  p.eth.type = in.vlan ? wire::kEtherTypeDot1Q : ip_type;
  p.vlan = in.vlan;
  if (p.vlan) p.vlan->type = ip_type;
  p.bth.opcode = in.opcode;
  p.bth.psn = in.psn;
  p.bth.dqpn = in.from_requester ? 0x123 : 0x11;
  p.bth.ackreq = in.ackreq ? 1 : 0;
  if (!in.from_requester) p.aeth = wire::Aeth{wire::kSyndromeAck, in.msn};
  if (in.from_requester && wire::opcode_info(in.opcode)->is(wire::kRead))
    p.reth = wire::Reth{0x4000, 7, 64};  // a READ request; its responses carry none
  if (in.ext) {
    p.bth.version = wire::kExtVersion;
    if (in.from_requester) {
      p.mxh.emplace().msn = 1;
    } else {
      p.sacketh.emplace().mpr = 8;
    }
  }
  const std::vector<uint8_t> payload(in.payload, in.fill);
  p.payload = payload;
  wire::BuildOptions options;
  if (in.break_icrc) {
    options.fill_icrc = false;
    p.icrc = 0xdeadbeef;
  }
  const std::vector<uint8_t> frame = wire::build_frame(p, options);
  auto d = wire::decode_frame(frame);
  EXPECT_TRUE(d.has_value());
  RecordedPacket r;
  r.from_requester = in.from_requester;
  r.frame_number = frame_number;
  r.t_ns = frame_number * 1000;
  r.decoded = std::get<wire::DecodedRoce>(*d);
  r.payload = payload;
  r.decoded.packet.payload = {};
  r.decoded.packet.pad = {};
  return r;
}

RecordedConnection connection(const std::vector<Packet>& packets) {
  RecordedConnection c;
  c.requester_ip = "198.18.0.2";
  c.responder_ip = "198.18.0.1";
  c.responder_qpn = 0x123;
  for (const Packet& p : packets) c.packets.push_back(recorded(p, c.packets.size() + 1));
  if (std::ranges::any_of(packets, [](const Packet& p) { return !p.from_requester; }))
    c.requester_qpn = 0x11;
  return c;
}

std::string script(const RecordedConnection& c) {
  auto s = script_from_connection(c, {.capture_name = "test.pcapng"});
  EXPECT_TRUE(s.has_value()) << s.error();
  return s ? *s : "";
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

const Packet kAck{.from_requester = false, .opcode = wire::kOpRcAcknowledge, .payload = 0};

// A SEND of "x", then a READ of 64 bytes at 0x4000, the lowest (and only) VA the requests
// name, which the recorded responder answered with 64 bytes of 'A'.
std::vector<Packet> send_then_read() {
  return {{.psn = 0x100, .payload = 1, .fill = 'x'},
          {.from_requester = false, .opcode = wire::kOpRcAcknowledge, .psn = 0x100, .payload = 0},
          {.opcode = wire::kOpRcRdmaReadRequest, .psn = 0x101, .payload = 0},
          {.from_requester = false,
           .opcode = wire::kOpRcRdmaReadResponseOnly,
           .psn = 0x101,
           .payload = 64,
           .fill = 'A',
           .msn = 2}};
}

// The number after `key` in `line` (0x... or decimal), or `otherwise` when it has none.
uint64_t number_after(const std::string& line, const std::string& key, uint64_t otherwise = 0) {
  const size_t at = line.find(key);
  return at == std::string::npos ? otherwise
                                 : std::stoull(line.substr(at + key.size()), nullptr, 0);
}

// Offsets from A.va: [begin, end).
struct Range {
  uint64_t begin = 0;
  uint64_t end = 0;
  bool overlaps(const Range& o) const { return begin < o.end && o.begin < end; }
};

// Where a script puts things in the DUT's region.
struct ScriptMemory {
  uint64_t region = 0;
  std::vector<Range> receive_buffers;  // post_recv
  std::vector<Range> rdma;             // write_mem, and what the requests' RETH and AtomicETH name
};

// The offset of `va=A.va`, `va=A.va+0x40` in `line` at or after `from`.
uint64_t va_offset(const std::string& line, size_t from) {
  const size_t at = line.find("va=A.va", from) + std::string("va=A.va").size();
  return line[at] == '+' ? std::stoull(line.substr(at + 1), nullptr, 0) : 0;
}

ScriptMemory memory_of(const std::string& script) {
  ScriptMemory m;
  std::istringstream in(script);
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("dut qp A = create_qp(")) m.region = number_after(line, "mr_len=");
    if (line.starts_with("dut post_recv A ")) {
      const uint64_t at = number_after(line, "offset=");
      m.receive_buffers.push_back(
          {at, at + number_after(line, "count=") * number_after(line, "len=")});
    }
    if (line.starts_with("dut write_mem A ")) {
      const uint64_t at = number_after(line, "offset=");
      const size_t run = line.find("\" * ");
      const uint64_t n =
          run != std::string::npos ? std::stoull(line.substr(run + 4)) : count(line, "\\x");
      m.rdma.push_back({at, at + n});
    }
    if (line.find("< BTH(") == std::string::npos) continue;
    if (const size_t at = line.find("RETH(va=A.va"); at != std::string::npos) {
      const uint64_t va = va_offset(line, at);
      m.rdma.push_back({va, va + number_after(line, "dlen=")});
    }
    if (const size_t at = line.find("AtomicETH(va=A.va"); at != std::string::npos)
      m.rdma.push_back({va_offset(line, at), va_offset(line, at) + 8});
  }
  return m;
}

// Every receive buffer inside the region and apart from all RDMA memory.
void expect_receive_buffers_apart(const std::string& s) {
  const ScriptMemory m = memory_of(s);
  ASSERT_FALSE(m.receive_buffers.empty()) << s;
  ASSERT_FALSE(m.rdma.empty()) << s;
  for (const Range& r : m.receive_buffers) {
    EXPECT_LE(r.end, m.region) << s;
    for (const Range& d : m.rdma) {
      EXPECT_FALSE(r.overlaps(d)) << "receive buffers [" << r.begin << ", " << r.end
                                  << ") overlap RDMA memory [" << d.begin << ", " << d.end << ")\n"
                                  << s;
    }
  }
}

TEST(ScriptFromCapture, AnIpv6ConnectionIsReplayedOverIpv6) {
  Packet send{.ipv6 = true};
  Packet answer = kAck;
  answer.ipv6 = true;
  const std::string s = script(connection({send, answer}));
  EXPECT_NE(s.find("create_qp(type=RC, mtu=256, mr_len=0x100000, ipv6=1)"), std::string::npos) << s;
}

TEST(ScriptFromCapture, AVlanTagAndItsPriorityAreTheConnectionsPath) {
  const wire::Dot1Q tag{.prio = 5, .vlan = 42};
  Packet send{.vlan = tag};
  Packet answer = kAck;
  answer.vlan = tag;
  const std::string s = script(connection({send, answer}));
  EXPECT_NE(s.find(", vlan=42, pcp=5)"), std::string::npos) << s;
}

TEST(ScriptFromCapture, APriorityTagIsNamedAsNotCarriedOver) {
  Packet send{.vlan = wire::Dot1Q{.prio = 3, .vlan = 0}};
  const std::string s = script(connection({send, kAck}));
  EXPECT_EQ(s.find("vlan="), std::string::npos) << s;
  EXPECT_NE(s.find("priority tag (VID 0, PCP 3)"), std::string::npos) << s;
}

TEST(ScriptFromCapture, ExtPacketsAreNamedAsReplayedInTheirBaseForm) {
  Packet send{.ext = true};
  Packet ack = kAck;
  ack.ext = true;
  const std::string s = script(connection({send, ack}));
  EXPECT_NE(s.find("# 2 of the frames are Ext packets (BTH TVer 1"), std::string::npos) << s;
  EXPECT_NE(s.find("< BTH(opcode=RC_SEND_ONLY, psn=P, ackreq=1)"), std::string::npos) << s;
  EXPECT_EQ(script(connection({Packet{}, kAck})).find("Ext packets"), std::string::npos);
}

TEST(ScriptFromCapture, ARequestWithAWrongIcrcGoesOutWithItAndTheScriptSaysSo) {
  Packet bad{.psn = 0x100, .break_icrc = true};
  Packet good{.psn = 0x100};
  Packet answer = kAck;
  const std::string s = script(connection({bad, good, answer}));
  EXPECT_NE(s.find("< BTH(opcode=RC_SEND_ONLY, psn=P, ackreq=1, icrc=0xdeadbeef)"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("# frame 1: its ICRC 0xdeadbeef is wrong"), std::string::npos) << s;
  EXPECT_EQ(count(s, "icrc="), 1U) << s;
}

TEST(ScriptFromCapture, ARequesterAloneGetsTheAnswersTheSpecRequires) {
  // A SEND of two packets, sent three times with no answer (as in pcaps/rxe).
  std::vector<Packet> sent;
  for (int t = 0; t < 3; ++t) {
    sent.push_back({.opcode = wire::kOpRcSendFirst, .psn = 0x100, .payload = 256, .ackreq = false});
    sent.push_back({.opcode = wire::kOpRcSendLast, .psn = 0x101, .payload = 10});
  }
  const std::string s = script(connection(sent));
  // The first LAST is executed (ACK of its PSN, MSN 1); the 4 duplicates draw ACKs of ePSN - 1.
  EXPECT_EQ(count(s, "> BTH(opcode=RC_ACKNOWLEDGE, psn=P+1)/AETH(syndrome=ACK, msn=1)"), 5U) << s;
  EXPECT_EQ(count(s, "\n*"), 5U) << s;
  EXPECT_NE(s.find("holds no answer from the responder"), std::string::npos) << s;
  EXPECT_NE(s.find("frames 1-6"), std::string::npos) << s;
}

TEST(ScriptFromCapture, ARequesterAloneBreakingSegmentationDrawsNakInvalidRequestThenSilence) {
  // A FIRST of 29 bytes is no PMTU: NAK 0x61, and the QP in Error answers nothing more.
  const std::string s = script(
      connection({{.opcode = wire::kOpRcSendFirst, .psn = 0x100, .payload = 29, .ackreq = false},
                  {.opcode = wire::kOpRcSendOnly, .psn = 0x101}}));
  EXPECT_NE(s.find("> BTH(opcode=RC_ACKNOWLEDGE, psn=P)/AETH(syndrome=0x61, msn=0)"),
            std::string::npos)
      << s;
  EXPECT_EQ(count(s, "\n*"), 1U) << s;
  EXPECT_NE(s.find("dut post_recv A count=2 len=29"), std::string::npos) << s;
}

TEST(ScriptFromCapture, ARequesterAloneWithAReadIsRefusedNamingTheFrame) {
  auto s = script_from_connection(
      connection({{}, {.opcode = wire::kOpRcRdmaReadRequest, .psn = 0x101, .payload = 0}}),
      {.capture_name = "test.pcapng"});
  ASSERT_FALSE(s.has_value());
  EXPECT_NE(s.error().find("test.pcapng: frame 2: RC_RDMA_READ_REQUEST"), std::string::npos)
      << s.error();
}

TEST(ScriptFromCapture, RequestsSpanningMoreThan256MiBAreRefused) {
  RecordedConnection c =
      connection({{.opcode = wire::kOpRcRdmaReadRequest, .payload = 0},
                  {.from_requester = false, .opcode = wire::kOpRcRdmaReadResponseOnly}});
  c.packets[0].decoded.packet.reth->dlen = uint32_t{1} << 31;
  auto s = script_from_connection(c, {.capture_name = "test.pcapng"});
  ASSERT_FALSE(s.has_value());
  EXPECT_NE(s.error().find("test.pcapng: the requests span 2147483648 bytes"), std::string::npos)
      << s.error();
}

TEST(ScriptFromCapture, ReceiveBuffersLieApartFromTheMemoryALaterReadOfTheLowestVaReturns) {
  const std::string s = script(connection(send_then_read()));
  expect_receive_buffers_apart(s);
  // The READ keeps its recorded place, and its data is written there.
  EXPECT_NE(s.find("/RETH(va=A.va, rkey=A.rkey, dlen=64)"), std::string::npos) << s;
  EXPECT_NE(s.find("dut write_mem A offset=0x0 data=b\"\\x41\" * 64\n"), std::string::npos) << s;
}

TEST(ScriptFromCapture, ReceiveBuffersPastAMebibyteOfRdmaMemoryGrowTheRegion) {
  RecordedConnection c = connection(send_then_read());
  c.packets[2].decoded.packet.reth->dlen = 1 << 20;
  const std::string s = script(c);
  expect_receive_buffers_apart(s);
  EXPECT_GT(memory_of(s).region, uint64_t{1} << 20) << s;
}

TEST(ScriptFromCapture, ACaptureNamingNoRdmaMemoryPostsItsReceiveBuffersAtTheRegionStart) {
  const std::string s = script(connection({{}, kAck}));
  EXPECT_NE(s.find("dut post_recv A count=1 len=8\n"), std::string::npos) << s;
  EXPECT_EQ(s.find("offset="), std::string::npos) << s;
}

// The script run against the embedded reference: its READ answers with the recorded bytes,
// not with the SEND's (issue 26).
TEST(ScriptFromCapture, AReadAfterASendReturnsTheRecordedBytesOnTheReference) {
  const std::string s = script(connection(send_then_read()));
  auto parsed = script::parse_script(s, "replay.mrt");
  ASSERT_TRUE(parsed.ok()) << parsed.diagnostics[0].to_string() << "\n" << s;
  auto pixit = engine::Pixit::load("testcases/pixit/default.pixit.json");
  ASSERT_TRUE(pixit) << pixit.error();
  dut::EmbeddedReferencePort port(*pixit, {});
  engine::TestOptions options;
  options.pics = {{"rc.send", true}, {"rc.read", true}};
  const report::TestResult r = engine::run_test(parsed.script, port, *pixit, options);
  std::string failures;
  for (const auto& f : r.failures) {
    failures += "\n" + std::to_string(f.line) + " " + f.field + ": expected " + f.expected +
                ", actual " + f.actual;
  }
  EXPECT_EQ(r.verdict, report::Verdict::kPass) << r.reason << failures << "\n" << s;
}

TEST(ScriptFromCapture, FramesThatCouldNotBeDecodedAreNamed) {
  RecordedConnection c = connection({{}, kAck});
  c.omitted.push_back({7, "snapped to 60 of 1082 bytes (IPv4 total length 1068 ...)"});
  c.file_error = "byte 5556: block of 108 bytes truncated: 71 remain";
  const std::string s = script(c);
  EXPECT_NE(s.find("# frame 7 is not replayed: snapped to 60 of 1082 bytes"), std::string::npos)
      << s;
  EXPECT_NE(s.find("cut short (byte 5556"), std::string::npos) << s;
}

}  // namespace
}  // namespace mr::replay
