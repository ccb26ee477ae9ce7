#!/bin/bash
# Bazel's workspace status command (.bazelrc: --workspace_status_command). Its STABLE_ keys
# go to bazel-out/stable-status.txt, which only a stamped build reads (`bazel build --stamp`,
# as ./metaroce builds): there, one generated source (build_commit.bzl) takes the commit, so
# a new commit recompiles that one object and relinks; an unstamped build reads nothing.
#   STABLE_GIT_COMMIT  the checkout's HEAD, "-dirty" appended when tracked files differ from it
# Nothing outside a git checkout. Bazel runs this at every build: two git calls that answer
# from the index, in milliseconds.
set -u
commit=$(git rev-parse HEAD 2>/dev/null) || exit 0
if [[ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]]; then
  commit+="-dirty"
fi
echo "STABLE_GIT_COMMIT $commit"
