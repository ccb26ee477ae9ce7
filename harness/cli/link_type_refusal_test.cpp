// `metaroce analyze` and `metaroce decode` refuse a capture whose link type they cannot read
// (anything but Ethernet 1, Linux cooked SLL 113 and SLL2 276) before printing anything on
// stdout, summary included: exit 2, and stderr names the file and the link type, number and
// name, whether the file has frames or none. An empty capture of a link type they read is
// still a clean one (exit 0, "0 frames").
#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

extern char** environ;

namespace {

// Little-endian capture files, built here byte by byte.
void put(std::vector<uint8_t>& out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

std::string tmp(const std::string& name) {
  return std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
}

std::string write_file(const std::string& name, const std::vector<uint8_t>& bytes) {
  std::string path = tmp(name);
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<long>(bytes.size()));
  return path;
}

// An IPv4/UDP packet to port 4791 with a BTH, as a LINKTYPE_RAW capture holds it (behind a
// 4-byte address family for LINKTYPE_NULL).
std::vector<uint8_t> ip_packet() {
  std::vector<uint8_t> p = {0x45, 0, 0, 48, 0, 0, 0x40, 0, 64, 17, 0, 0, 10, 0, 0, 2, 10, 0, 0, 1};
  const std::vector<uint8_t> udp = {0xc0, 0x01, 0x12, 0xb7, 0, 28, 0, 0};
  p.insert(p.end(), udp.begin(), udp.end());
  p.resize(48, 0);  // BTH (SEND ONLY to QP 0) and ICRC, zeros
  return p;
}

std::string pcap(const std::string& name, uint32_t link_type, int frames) {
  std::vector<uint8_t> b;
  put(b, 0xa1b2c3d4, 4);  // magic: microseconds
  put(b, 2, 2);           // version 2.4
  put(b, 4, 2);
  put(b, 0, 8);  // thiszone, sigfigs
  put(b, 65535, 4);
  put(b, link_type, 4);
  for (int i = 0; i < frames; ++i) {
    const std::vector<uint8_t> data = ip_packet();
    put(b, 1'700'000'000 + i, 4);
    put(b, 0, 4);
    put(b, data.size(), 4);
    put(b, data.size(), 4);
    b.insert(b.end(), data.begin(), data.end());
  }
  return write_file(name, b);
}

std::string pcapng(const std::string& name, uint32_t link_type, int frames) {
  std::vector<uint8_t> b;
  put(b, 0x0a0d0d0a, 4);  // section header
  put(b, 28, 4);
  put(b, 0x1a2b3c4d, 4);
  put(b, 1, 2);
  put(b, 0, 2);
  put(b, ~uint64_t{0}, 8);
  put(b, 28, 4);
  put(b, 1, 4);  // interface description
  put(b, 20, 4);
  put(b, link_type, 2);
  put(b, 0, 2);
  put(b, 65535, 4);
  put(b, 20, 4);
  for (int i = 0; i < frames; ++i) {
    std::vector<uint8_t> data = {2, 0, 0, 0};  // AF_INET, for LINKTYPE_NULL
    const std::vector<uint8_t> ip = ip_packet();
    data.insert(data.end(), ip.begin(), ip.end());  // 52 bytes: no padding
    const uint32_t len = 32 + static_cast<uint32_t>(data.size());
    put(b, 6, 4);  // enhanced packet
    put(b, len, 4);
    put(b, 0, 4);  // interface 0
    put(b, 0, 4);  // timestamp
    put(b, i, 4);
    put(b, data.size(), 4);
    put(b, data.size(), 4);
    b.insert(b.end(), data.begin(), data.end());
    put(b, len, 4);
  }
  return write_file(name, b);
}

struct Outcome {
  int status = -1;
  std::string out;
  std::string err;
};

std::string slurp(const std::string& path) {
  std::ostringstream s;
  s << std::ifstream(path).rdbuf();
  return s.str();
}

// The CLI with `args`, its stdout and stderr in files.
Outcome metaroce(const std::vector<std::string>& args) {
  std::vector<std::string> all = {"harness/cli/metaroce"};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  argv.reserve(all.size() + 1);
  for (auto& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  const std::string out = tmp("stdout.txt");
  const std::string err = tmp("stderr.txt");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = -1;
  const int spawned = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  Outcome o;
  if (spawned != 0) return o;
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return o;
  o.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  o.out = slurp(out);
  o.err = slurp(err);
  return o;
}

// Every way to read `path`: decode (text, JSON) and analyze (text, JSON; one thread, two).
std::vector<std::vector<std::string>> every_reading(const std::string& path) {
  return {{"decode", path},
          {"decode", path, "--json"},
          {"analyze", path},
          {"analyze", path, "--threads", "1"},
          {"analyze", path, "--json"},
          {"analyze", path, "--json", "--threads", "1"}};
}

void expect_refused(const std::string& path, const std::string& link_type) {
  for (const auto& args : every_reading(path)) {
    SCOPED_TRACE(args[0] + " " + path + (args.size() > 2 ? " " + args[2] : ""));
    const Outcome o = metaroce(args);
    EXPECT_EQ(o.status, 2) << o.err;
    EXPECT_EQ(o.out, "") << "nothing on stdout, no summary";
    EXPECT_NE(o.err.find("metaroce " + args[0] + ": " + path + ": byte "), std::string::npos)
        << o.err;
    EXPECT_NE(o.err.find(link_type + " is not one metaroce reads"), std::string::npos) << o.err;
  }
}

TEST(LinkTypeRefusal, AnEmptyCaptureOfAnUnreadLinkTypeIsRefused) {
  expect_refused(pcap("raw-empty.pcap", 101, 0), "link type 101 (LINKTYPE_RAW)");
  expect_refused(pcap("null-empty.pcap", 0, 0), "link type 0 (LINKTYPE_NULL)");
  expect_refused(pcapng("raw-empty.pcapng", 101, 0), "link type 101 (LINKTYPE_RAW) of interface 0");
  expect_refused(pcapng("null-empty.pcapng", 0, 0), "link type 0 (LINKTYPE_NULL) of interface 0");
  expect_refused(pcapng("unassigned-empty.pcapng", 4000, 0),
                 "link type 4000 (an unassigned link type) of interface 0");
}

TEST(LinkTypeRefusal, ACaptureWithFramesOfAnUnreadLinkTypeIsRefusedBeforeAnySummary) {
  expect_refused(pcap("raw-frames.pcap", 101, 2), "link type 101 (LINKTYPE_RAW)");
  expect_refused(pcapng("null-frames.pcapng", 0, 2), "link type 0 (LINKTYPE_NULL) of interface 0");
}

TEST(LinkTypeRefusal, AnEmptyCaptureOfALinkTypeItReadsIsCleanWithZeroFrames) {
  for (const std::string& path : {pcap("ether-empty.pcap", 1, 0), pcap("sll-empty.pcap", 113, 0),
                                  pcapng("sll2-empty.pcapng", 276, 0)}) {
    SCOPED_TRACE(path);
    const Outcome decoded = metaroce({"decode", path});
    EXPECT_EQ(decoded.status, 0) << decoded.err;
    EXPECT_EQ(decoded.out, "");
    const Outcome analyzed = metaroce({"analyze", path});
    EXPECT_EQ(analyzed.status, 0) << analyzed.err;
    EXPECT_EQ(analyzed.out.rfind("0 frames (0 RoCEv2", 0), 0u) << analyzed.out;
    EXPECT_EQ(analyzed.err, "");
  }
}

}  // namespace
