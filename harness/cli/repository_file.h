// File: repository_file.h
//
// The repository's own inputs (the suite under testcases/, its PICS profiles and PIXITs,
// docs/spec/clauses.json) wherever a command is run from: `metaroce run my/test.mrt` in any
// folder reads the user's paths from there and the project's files from the repository.
#pragma once

#include <string>
#include <string_view>

namespace mr::cli {

// The folder that holds docs/spec/clauses.json and testcases/, looked for in this order:
// $METAROCE_ROOT (./metaroce sets it), the working directory, then the folders above the
// executable (bazel-bin's execroot has the sources beside it). "" when the working
// directory is the root, so paths stay relative as users and reports expect.
std::string repository_root();

// `relative` (e.g. "testcases/pixit/default.pixit.json") inside repository_root().
std::string repository_file(std::string_view relative);

// The repository's git commit (full hash, "-dirty" appended when tracked files differ from
// it) at the time of the call. "" when there is no git checkout.
std::string repository_commit();

// Which harness judged a run, for manifest.json and report.json: the commit the binary was
// built from (`stamped`: build_commit(), from a stamped build), or, when the build was not
// stamped, the checkout's commit at run time, which the binary may not have been built from,
// and the manifest says which (`source`). A binary built at X and run in a checkout since
// moved to Y says X when stamped, and never passes Y off as its build.
struct HarnessCommit {
  std::string commit;  // "" when neither is known
  std::string source;  // one of the three below
};
inline constexpr std::string_view kCommitOfTheBuild = "stamped build";
inline constexpr std::string_view kCommitOfTheCheckout = "checkout at run time (unstamped build)";
inline constexpr std::string_view kCommitUnknown = "unknown (unstamped build)";

HarnessCommit harness_commit(std::string_view stamped);

}  // namespace mr::cli
