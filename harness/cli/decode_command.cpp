#include "harness/cli/decode_command.h"

#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include "reference/io/capture_reader.h"
#include "reference/wire/opcode.h"
#include "reference/wire/packet_json.h"

namespace mr::cli {
namespace {

struct DecodeOptions {
  std::string file;
  bool json = false;
};

std::string ip_src(const wire::RocePacket& p) {
  return std::visit([](const auto& ip) { return ip.src.to_string(); }, p.ip);
}
std::string ip_dst(const wire::RocePacket& p) {
  return std::visit([](const auto& ip) { return ip.dst.to_string(); }, p.ip);
}

// Seconds with nine decimals, from integer nanoseconds: a double has 53 bits and an epoch
// time in ns needs 61, so "%.9f" of ns / 1e9 was up to ~220 ns off.
std::string seconds_text(uint64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%llu.%09llu", static_cast<unsigned long long>(ns / 1'000'000'000),
                static_cast<unsigned long long>(ns % 1'000'000'000));
  return buf;
}

// One line per frame, tcpdump-like, for people.
void print_text(uint64_t frame, uint64_t t_ns, const wire::DecodedRoce& d) {
  const auto& p = d.packet;
  std::printf("%6llu %s %s > %s %s dqpn 0x%06x psn 0x%06x%s",
              static_cast<unsigned long long>(frame), seconds_text(t_ns).c_str(), ip_src(p).c_str(),
              ip_dst(p).c_str(), wire::opcode_name(p.bth.opcode).c_str(), p.bth.dqpn.value(),
              p.bth.psn.value(), p.bth.ackreq ? " ackreq" : "");
  if (p.aeth) std::printf(" syndrome 0x%02x msn %u", p.aeth->syndrome.value(), p.aeth->msn.value());
  if (p.reth) {
    std::printf(" va 0x%llx rkey 0x%08x dlen %u",
                static_cast<unsigned long long>(p.reth->va.value()), p.reth->rkey.value(),
                p.reth->dlen.value());
  }
  std::printf(" len %zu icrc %s\n", p.payload.size(), d.icrc_ok() ? "ok" : "BAD");
}

int run_decode(const DecodeOptions& o) {
  auto reader = io::CaptureReader::open(o.file);
  if (!reader) {
    std::fprintf(stderr, "metaroce decode: %s\n", reader.error().to_string().c_str());
    return kExitHarnessError;
  }
  for (uint64_t n = 1;; ++n) {
    auto f = reader->next();
    if (!f) {
      std::fflush(stdout);
      std::fprintf(stderr, "metaroce decode: %s (after %llu frames)\n",
                   f.error().to_string().c_str(), static_cast<unsigned long long>(n - 1));
      return kExitHarnessError;
    }
    if (!*f) break;
    const io::CapturedFrame& frame = **f;
    const double t = static_cast<double>(frame.timestamp_ns) / 1e9;
    nlohmann::ordered_json j;
    std::string text;
    if (frame.link_type != io::kLinkTypeEthernet) {
      j = {{"roce", false}, {"not_roce", "linktype " + std::to_string(frame.link_type)}};
      text = "linktype " + std::to_string(frame.link_type);
    } else if (auto d = wire::decode_frame(frame.data); !d) {
      j = wire::to_json(d.error());
      text = "malformed: " + d.error().to_string();
    } else if (const auto* roce = std::get_if<wire::DecodedRoce>(&*d)) {
      if (!o.json) {
        print_text(n, frame.timestamp_ns, *roce);
        continue;
      }
      j = wire::to_json(*roce);
    } else {
      j = wire::to_json(std::get<wire::NotRoce>(*d));
      text = "not RoCE: " + std::get<wire::NotRoce>(*d).to_string();
    }
    if (o.json) {
      nlohmann::ordered_json out = {{"frame", n},
                                    {"time", t},
                                    {"time_ns", frame.timestamp_ns},
                                    {"caplen", frame.data.size()}};
      out.update(j);
      std::cout << out.dump() << '\n';
    } else {
      std::printf("%6llu %s %s\n", static_cast<unsigned long long>(n),
                  seconds_text(frame.timestamp_ns).c_str(), text.c_str());
    }
  }
  std::cout.flush();
  return kExitOk;
}

}  // namespace

Runner setup_decode(CLI::App& app) {
  auto o = std::make_shared<DecodeOptions>();
  app.add_option("file", o->file, "pcap or pcapng capture")->required();
  app.add_flag("--json", o->json, "one JSON object per frame, Scapy's layer and field names");
  return [o] { return run_decode(*o); };
}

}  // namespace mr::cli
