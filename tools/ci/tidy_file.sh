#!/usr/bin/env bash
# tidy_file.sh CACHE_DIR HEADERS_HASH FILE: clang-tidy on one C++ file, skipped when the
# file, .clang-tidy and the project's headers (HEADERS_HASH) are as they were when it last
# passed; a pass is recorded in CACHE_DIR.
set -uo pipefail
cache=$1
headers=$2
file=$3
key="$(cat "$file" .clang-tidy | sha256sum | cut -c1-40)-${headers:0:40}"
[[ -f "$cache/$key" ]] && exit 0
clang-tidy --quiet -p /dev/null --extra-arg=-std=c++2b --extra-arg=-I. \
  --extra-arg=-I/usr/include/dpdk --extra-arg=-Wno-unknown-warning-option "$file" || exit 1
touch "$cache/$key"
