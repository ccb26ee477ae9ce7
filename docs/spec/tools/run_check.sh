#!/bin/bash
# Bazel test wrapper for check_spec.py: finds metaroce.md, clauses.json and the PICS/PIXIT
# files in the runfiles tree (or in the source tree when run by hand) and validates them.
set -euo pipefail
if [[ -n "${TEST_SRCDIR:-}" ]]; then
  root="${TEST_SRCDIR}/${TEST_WORKSPACE:-metaroce}"
else
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
fi
cd "$root"
shopt -s nullglob
files=(testcases/profiles/*.pics.json testcases/pixit/*.pixit.json)
if (( ${#files[@]} == 0 )); then
  echo "run_check.sh: no PICS or PIXIT files under $root/testcases" >&2
  exit 1
fi
export PYTHONDONTWRITEBYTECODE=1
exec /usr/bin/python3 docs/spec/tools/check_spec.py --spec-dir docs/spec "${files[@]}"
