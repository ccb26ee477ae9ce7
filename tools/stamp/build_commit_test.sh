#!/bin/bash
# build_commit_test: the source write_build_commit.sh writes for a stamped build (a commit, a
# dirty one), an unstamped one, and a status whose value is no commit hash; and what
# workspace_status.sh prints in a checkout, a dirty one, and outside any.
set -euo pipefail
dir=tools/stamp
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
failures=0

expect_commit() {  # NAME WANT [STATUS_LINE]
  local name=$1 want=$2 out="$tmp/$1.cpp"
  if [[ $# -ge 3 ]]; then
    printf 'BUILD_HOST h\n%s\nBUILD_USER u\n' "$3" >"$tmp/$name.txt"
    "$dir/write_build_commit.sh" "$out" "$tmp/$name.txt"
  else
    "$dir/write_build_commit.sh" "$out"
  fi
  if ! grep -qxF "std::string_view build_commit() { return \"$want\"; }" "$out"; then
    echo "FAIL $name: want \"$want\", got:"
    cat "$out"
    failures=$((failures + 1))
  fi
}

head=0123456789abcdef0123456789abcdef01234567
expect_commit stamped "$head" "STABLE_GIT_COMMIT $head"
expect_commit dirty "$head-dirty" "STABLE_GIT_COMMIT $head-dirty"
expect_commit unstamped ""
expect_commit no-key "" "BUILD_EMBED_LABEL x"
expect_commit hostile "" 'STABLE_GIT_COMMIT abc"; int x = 1; //'

expect_status() {  # NAME WANT (the whole output)
  local got
  got=$(cd "$repo" && "$OLDPWD/$dir/workspace_status.sh")
  if [[ "$got" != "$2" ]]; then
    echo "FAIL $1: want '$2', got '$got'"
    failures=$((failures + 1))
  fi
}

export GIT_CEILING_DIRECTORIES="$tmp"
repo="$tmp/checkout"
mkdir -p "$repo"
expect_status no-checkout ""
git -C "$repo" init -q
echo one >"$repo/file"
git -C "$repo" add file
git -C "$repo" -c user.name=t -c user.email=t@example.com commit -qm one
commit=$(git -C "$repo" rev-parse HEAD)
expect_status clean "STABLE_GIT_COMMIT $commit"
echo two >"$repo/file"
expect_status dirty "STABLE_GIT_COMMIT $commit-dirty"

if [[ $failures -ne 0 ]]; then exit 1; fi
echo "build_commit_test: PASS"
