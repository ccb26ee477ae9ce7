#!/usr/bin/env bash
# tidy_file.sh CACHE_DIR KEY FILE: clang-tidy on one C++ file, skipped when KEY (from
# tools/ci/tidy_keys.py: the file, the project headers it includes, .clang-tidy and the
# clang-tidy version) is recorded in CACHE_DIR, where a pass is recorded.
set -uo pipefail
cache=$1
key=$2
file=$3
[[ -f "$cache/$key" ]] && exit 0
clang-tidy --quiet -p /dev/null --extra-arg=-std=c++2b --extra-arg=-I. \
  --extra-arg=-I/usr/include/dpdk --extra-arg=-I/usr/include/x86_64-linux-gnu/dpdk \
  --extra-arg=-Wno-unknown-warning-option "$file" || exit 1
touch "$cache/$key"
