#include "reference/io/pcap_file_link.h"

namespace mr::io {

Expected<PcapFileLink, std::string> PcapFileLink::open(const PcapFileLinkPaths& paths) {
  std::optional<CaptureReader> reader;
  if (!paths.replay.empty()) {
    auto r = CaptureReader::open(paths.replay);
    if (!r) return Unexpected(r.error().to_string());
    reader.emplace(std::move(*r));
  }
  std::optional<PcapngWriter> writer;
  if (!paths.record.empty()) {
    auto w = PcapngWriter::create(paths.record, "metaroce PcapFileLink");
    if (!w) return Unexpected(w.error());
    writer.emplace(std::move(*w));
  }
  return PcapFileLink(paths, std::move(reader), std::move(writer));
}

std::string PcapFileLink::name() const {
  return "pcapfile:" + (paths_.replay.empty() ? "-" : paths_.replay) + ">" +
         (paths_.record.empty() ? "-" : paths_.record);
}

size_t PcapFileLink::send_burst(std::span<const Frame> frames) {
  if (!writer_) {
    last_send_error_ = "no recording file";
    return 0;
  }
  size_t written = 0;
  for (const Frame& f : frames) {
    if (auto ok = writer_->write(f.bytes, f.timestamp_ns); !ok) {
      last_send_error_ = ok.error();
      break;
    }
    ++written;
  }
  return written;
}

size_t PcapFileLink::receive_burst(std::span<Frame> out, uint64_t /*timeout_ns*/) {
  size_t n = 0;
  while (n < out.size() && !replay_done()) {
    auto next = reader_->next();
    if (!next) {
      replay_error_ = next.error();
      replay_done_ = true;
      break;
    }
    if (!*next) {
      replay_done_ = true;
      break;
    }
    const CapturedFrame& c = **next;
    if (c.link_type != kLinkTypeEthernet) {
      ++skipped_non_ethernet_;
      continue;
    }
    out[n].bytes.assign(c.data.begin(), c.data.end());
    out[n].timestamp_ns = c.timestamp_ns;
    ++n;
  }
  return n;
}

Expected<void, std::string> PcapFileLink::close() {
  if (!writer_) return {};
  auto ok = writer_->close();
  writer_.reset();
  return ok;
}

}  // namespace mr::io
