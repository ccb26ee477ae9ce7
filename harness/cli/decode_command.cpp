#include "harness/cli/decode_command.h"

#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include "harness/cli/frame_text.h"
#include "reference/io/capture_reader.h"
#include "reference/io/link_type.h"
#include "reference/wire/packet_json.h"

namespace mr::cli {
namespace {

struct DecodeOptions {
  std::string file;
  bool json = false;
};

// A corrupt capture, or a link type the codec does not read, after `frames` frames were
// printed (a link type refused before any frame: none).
int stopped(const io::CaptureError& e, uint64_t frames) {
  std::cout.flush();
  if (e.cause == io::CaptureError::Cause::kLinkType && frames == 0) {
    std::fprintf(stderr, "metaroce decode: %s\n", e.to_string().c_str());
  } else {
    std::fprintf(stderr, "metaroce decode: %s (after %llu frames)\n", e.to_string().c_str(),
                 static_cast<unsigned long long>(frames));
  }
  return kExitHarnessError;
}

int run_decode(const DecodeOptions& o) {
  // Refuses a link type the codec does not read where the file declares it, frames or none.
  auto reader = io::open_for_decoding(o.file);
  if (!reader) {
    std::fprintf(stderr, "metaroce decode: %s\n", reader.error().to_string().c_str());
    return kExitHarnessError;
  }
  for (uint64_t n = 1;; ++n) {
    auto f = reader->next();
    if (!f) return stopped(f.error(), n - 1);
    if (!*f) break;
    const io::CapturedFrame& frame = **f;
    const auto framing = io::framing_of(o.file, frame);
    if (!framing) return stopped(framing.error(), n - 1);
    const double t = static_cast<double>(frame.timestamp_ns) / 1e9;
    nlohmann::ordered_json j;
    std::string text;
    if (auto d = wire::decode_frame(frame.data, *framing); !d) {
      j = wire::to_json(d.error());
      text = malformed_line(n, frame.timestamp_ns, d.error());
    } else if (const auto* roce = std::get_if<wire::DecodedRoce>(&*d)) {
      if (o.json) {
        j = wire::to_json(*roce);
      } else {
        text = roce_line(n, frame.timestamp_ns, *roce);
      }
    } else {
      j = wire::to_json(std::get<wire::NotRoce>(*d));
      text =
          other_line(n, frame.timestamp_ns, "not RoCE: " + std::get<wire::NotRoce>(*d).to_string());
    }
    if (o.json) {
      nlohmann::ordered_json out = {{"frame", n},
                                    {"time", t},
                                    {"time_ns", frame.timestamp_ns},
                                    {"caplen", frame.data.size()}};
      out.update(j);
      std::cout << out.dump() << '\n';
    } else {
      std::cout << text << '\n';
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
