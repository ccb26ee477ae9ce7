// File: analyze_capture.h
//
// A whole capture file through an Analyzer: streams its frames (CaptureReader, one mapped
// file), reads each pcapng packet comment so that the tester's packets are told apart, and
// stops at the first corruption with the reader's offset-precise error, or where the file
// declares a link type the codec does not read (io::open_for_decoding: Ethernet and Linux
// cooked captures are read; the error's cause is then kLinkType), frames or none; the
// analysis of the frames before it stays in the Analyzer. Also the JSON document of
// `analyze --json`.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "harness/analyze/analyzer.h"
#include "reference/error/expected.h"
#include "reference/io/capture_reader.h"

namespace mr::analyze {

Expected<void, io::CaptureError> analyze_capture(const std::string& path, Analyzer& analyzer);

// Collects violations for the JSON document, keeping at most `limit` (bounded memory).
class ViolationList {
 public:
  explicit ViolationList(size_t limit = 10000) : limit_(limit) {}
  void add(const Violation& v);
  const std::vector<Violation>& kept() const { return kept_; }
  size_t omitted() const { return omitted_; }

 private:
  size_t limit_;
  std::vector<Violation> kept_;
  size_t omitted_ = 0;
};

nlohmann::ordered_json analysis_json(const std::string& file, const Analyzer& a,
                                     const ViolationList& violations,
                                     const std::optional<io::CaptureError>& error);

}  // namespace mr::analyze
