// File: captured_output.h
//
// What a library prints on the process's standard output and error while one call runs,
// captured so that it can go into an error value instead of the terminal. DPDK's EAL
// explains a failed start only this way: getopt names an unknown option on stderr, EAL
// logs the reason, and prints its usage text on stdout.
//
// Process-wide (file descriptors 1 and 2 are shared by every thread): meant for a start-up
// call such as rte_eal_init, not for a hot path.
//
// Usage:
//   CapturedOutput printed;
//   const int rc = capture_output([&] { return rte_eal_init(argc, argv); }, printed);
#pragma once

#include <functional>
#include <string>

namespace mr::io::dpdk {

// Each stream on its own: stdio buffers stdout and writes it in blocks, which would cut
// stderr's lines apart in one shared file.
struct CapturedOutput {
  std::string out;
  std::string err;
};

// Runs fn with stdout and stderr redirected into memory files; `printed` receives what each
// got. When the redirection cannot be set up, fn runs uncaptured and printed stays empty.
int capture_output(const std::function<int()>& fn, CapturedOutput& printed);

// The lines of `text` that explain an error: the ones a usage or help text does not hold
// (indented lines, headings ending in ':', "Usage:" lines), joined with "; ".
std::string explanation_lines(const std::string& text);

}  // namespace mr::io::dpdk
