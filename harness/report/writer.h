// File: writer.h
//
// The report writers: each renders one file of a run directory from the results model.
// They are pure (RunResult in, text out) and listed in one table, kWriters, in the order
// write_run_directory writes them. A writer sees the SHA-256 of the files written before it,
// which is how manifest.json (last) lists the digest of every output.
//
//   for (const Writer& w : kWriters) files[w.file_name] = w.render({run, digests});
#pragma once

#include <map>
#include <span>
#include <string>
#include <string_view>

#include "harness/report/results.h"

namespace mr::report {

struct RenderContext {
  const RunResult& run;
  // File name -> SHA-256 of every output rendered before this one.
  const std::map<std::string, std::string>& output_sha256;
};

struct Writer {
  std::string_view file_name;
  std::string_view description;
  std::string (*render)(const RenderContext&);
};

// One per file; each lives in <name>_writer.cpp.
std::string render_report_json(const RenderContext& ctx);
std::string render_junit_xml(const RenderContext& ctx);
std::string render_index_html(const RenderContext& ctx);
std::string render_summary_md(const RenderContext& ctx);
std::string render_manifest_json(const RenderContext& ctx);

// report.json, junit.xml, index.html, summary.md, manifest.json.
std::span<const Writer> writers();

}  // namespace mr::report
