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
// it), for the manifest: which harness judged a run. "" when there is no git checkout.
std::string repository_commit();

}  // namespace mr::cli
