// File: build_commit.h
//
// The git commit this binary was built from, when its build was stamped: `bazel build --stamp`
// (./metaroce builds that way) with the workspace status of tools/stamp/workspace_status.sh,
// whose STABLE_GIT_COMMIT is written into one generated source (tools/stamp/build_commit.bzl).
// A new commit recompiles that one object and relinks the binary, nothing more. An unstamped
// build (the tests, a plain `bazel build`) reads no workspace status and carries "", so the
// action cache and the test results outlive commits.
//
// Usage:
//   const HarnessCommit c = harness_commit(build_commit());  // repository_file.h
#pragma once

#include <string_view>

namespace mr::cli {

// The full commit hash, "-dirty" appended when tracked files differed from it at build time;
// "" when the build was not stamped (or was stamped outside a git checkout).
std::string_view build_commit();

}  // namespace mr::cli
