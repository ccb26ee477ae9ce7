#include "harness/peer/tool_output.h"

#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace mr::peer {
namespace {

std::vector<std::string> lines_of(std::string_view text) {
  std::vector<std::string> out;
  std::istringstream in{std::string(text)};
  for (std::string line; std::getline(in, line);) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    out.push_back(line);
  }
  return out;
}

std::string trimmed(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t");
  return a == std::string::npos ? "" : s.substr(a);
}

// All whitespace-separated tokens as numbers, or nothing when one is not a number.
std::optional<std::vector<double>> numbers(const std::string& line) {
  std::istringstream in(line);
  std::vector<double> out;
  for (std::string token; in >> token;) {
    char* end = nullptr;
    const double v = std::strtod(token.c_str(), &end);
    if (end == token.c_str() || *end != '\0') return std::nullopt;
    out.push_back(v);
  }
  if (out.empty()) return std::nullopt;
  return out;
}

Unexpected<std::string> missing(const std::string& what, std::string_view output) {
  return Unexpected("no " + what + " in the tool's output:\n" + std::string(output));
}

}  // namespace

Expected<PingpongResult, std::string> parse_pingpong_output(std::string_view output) {
  PingpongResult r;
  bool bytes_line = false;
  bool iters_line = false;
  for (const auto& line : lines_of(output)) {
    unsigned long long n = 0;
    double a = 0;
    double b = 0;
    if (std::sscanf(line.c_str(), "%llu bytes in %lf seconds = %lf Mbit/sec", &n, &a, &b) == 3) {
      r.bytes = n;
      r.seconds = a;
      r.mbit_per_sec = b;
      bytes_line = true;
    } else if (std::sscanf(line.c_str(), "%llu iters in %lf seconds = %lf usec/iter", &n, &a, &b) ==
               3) {
      r.iters = n;
      r.usec_per_iter = b;
      iters_line = true;
    }
  }
  if (!bytes_line) return missing("\"N bytes in X seconds = Y Mbit/sec\" line", output);
  if (!iters_line) return missing("\"N iters in X seconds = Y usec/iter\" line", output);
  return r;
}

Expected<PerftestResult, std::string> parse_perftest_output(std::string_view output,
                                                            bool row_required) {
  const auto lines = lines_of(output);
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string head = trimmed(lines[i]);
    if (head.rfind("#bytes", 0) != 0) continue;
    PerftestResult r;
    r.header = head;
    r.bandwidth = head.find("BW average") != std::string::npos;
    for (size_t j = i + 1; j < lines.size(); ++j) {
      if (auto row = numbers(lines[j]); row && row->size() >= 2) {
        r.row = *row;
        break;
      }
      if (trimmed(lines[j]).rfind("---", 0) == 0) break;  // the table's closing rule
    }
    if (row_required && r.row.empty()) return missing("result row under \"" + head + "\"", output);
    return r;
  }
  return missing("perftest result table (a \"#bytes\" header)", output);
}

std::string PerftestResult::describe() const {
  if (row.empty()) return "no result row (passive side)";
  char text[96];
  if (bandwidth && row.size() >= 5) {
    std::snprintf(text, sizeof text, "BW average %.2f MB/sec, %.6f Mpps", row[3], row[4]);
  } else if (!bandwidth && row.size() >= 6) {
    std::snprintf(text, sizeof text, "t_typical %.2f usec, t_avg %.2f usec", row[4], row[5]);
  } else {
    std::snprintf(text, sizeof text, "%zu values", row.size());
  }
  return text;
}

}  // namespace mr::peer
