#include "harness/analyze/analyze_capture.h"

#include "harness/analyze/report.h"
#include "reference/io/link_type.h"

namespace mr::analyze {

Expected<void, io::CaptureError> analyze_capture(const std::string& path, Analyzer& analyzer) {
  auto reader = io::open_for_decoding(path);
  if (!reader) return Unexpected(reader.error());
  io::CapturedFrame frame;
  while (true) {
    auto got = reader->next_into(frame);
    if (!got) return Unexpected(got.error());
    if (!*got) return {};
    if (auto framing = io::framing_of(path, frame); !framing) return Unexpected(framing.error());
    analyzer.add(frame);
  }
}

void ViolationList::add(const Violation& v) {
  if (kept_.size() < limit_) {
    kept_.push_back(v);
  } else {
    ++omitted_;
  }
}

nlohmann::ordered_json analysis_json(const std::string& file, const Analyzer& a,
                                     const ViolationList& violations,
                                     const std::optional<io::CaptureError>& error) {
  const AnalyzerCounts& n = a.counts();
  nlohmann::ordered_json j = {{"file", file},
                              {"frames", n.frames},
                              {"roce_frames", n.roce},
                              {"not_roce", n.not_roce},
                              {"malformed", n.malformed},
                              {"snapped", n.snapped},
                              {"violations_total", n.violations},
                              {"tester_violations", n.tester_violations},
                              {"violations_omitted", violations.omitted()},
                              {"flows", flows_json(a)}};
  auto list = nlohmann::ordered_json::array();
  for (const Violation& v : violations.kept()) list.push_back(violation_json(v));
  j["violations"] = std::move(list);
  if (error) j["error"] = {{"offset", error->offset}, {"reason", error->to_string()}};
  return j;
}

}  // namespace mr::analyze
