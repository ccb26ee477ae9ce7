#!/usr/bin/env bash
# Bazel test: the whole suite against the embedded reference must pass (exit 0), and the
# run directory must hold every report.
set -uo pipefail
metaroce=$1
out="${TEST_TMPDIR:-/tmp}/reference-run"
"$metaroce" run --quiet --out "$out"
rc=$?
for f in index.html report.json junit.xml summary.md manifest.json; do
  [[ -s "$out/$f" ]] || { echo "missing $out/$f"; exit 1; }
done
exit $rc
