#!/bin/bash
# Bazel test wrapper for check_spec_selftest.py (negative tests of the spec validator).
set -euo pipefail
if [[ -n "${TEST_SRCDIR:-}" ]]; then
  root="${TEST_SRCDIR}/${TEST_WORKSPACE:-metaroce}"
else
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
fi
cd "$root"
export PYTHONDONTWRITEBYTECODE=1
# The self-test copies its inputs into a temporary directory; Bazel provides TEST_TMPDIR.
export TMPDIR="${TEST_TMPDIR:-${TMPDIR:-/tmp}}"
exec /usr/bin/python3 docs/spec/tools/check_spec_selftest.py \
  --spec-dir docs/spec --testcases testcases
