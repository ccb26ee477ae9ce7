#!/usr/bin/env bash
# Bazel test: runs `metaroce mutants` on the suite, then check_mutant_matrix.py.
set -uo pipefail
metaroce=$1
out="${TEST_TMPDIR:-/tmp}/mutants"
"$metaroce" mutants --out "$out" >"$out.log" 2>&1
rc=$?
tail -5 "$out.log"
if [[ ! -f "$out/mutants.json" ]]; then
  cat "$out.log"
  echo "metaroce mutants wrote no matrix (exit $rc)"
  exit 1
fi
exec /usr/bin/python3 tools/ci/check_mutant_matrix.py "$out/mutants.json" testcases testcases/mutants-survivors.txt
