#!/usr/bin/env bash
# ./metaroce bench suite: the wall time of the whole suite on the embedded reference
# (in-memory link, virtual clock) against its anchor, the per-test fixed overhead: a test
# purpose with an empty script (a DUT, a reset, a capture file, a verdict, and nothing
# else) run as many times as the suite has tests (--repeat). One core (taskset -c 0), then
# --jobs 2 on two cores. Best of 5 runs each (the machine is shared). The CLI is -c opt.
# Scale: the suite at 4x and 16x its test runs (--repeat), one core, best of 3, against 4 and
# 16 times the 1x time: linear or better is a ratio of 1 or more.
# Results: a table on stdout and reports/bench/suite.json.
set -uo pipefail
cd "$(dirname "$0")/../.."
cache="${HOME:-/root}/.cache/metaroce-bench"
out_dir=reports/bench
mkdir -p "$cache" "$out_dir"
if ! bazel build --noshow_progress -c opt //harness/cli:metaroce >"$cache/build.log" 2>&1; then
  tail -30 "$cache/build.log" >&2
  exit 2
fi
cli=bazel-out/k8-opt/bin/harness/cli/metaroce
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/empty/base"
cat >"$work/empty/base/EMPTY-001.mrt" <<'MRT'
# tp: EMPTY-001
# clause: MR-AK-01
# group: BV
# pics: rc.send
# purpose: nothing: the fixed cost of one test purpose
MRT
# The suite's size: test purposes that ran, not-applicable ones included (they cost a parse).
"$cli" run --quiet --no-progress --out "$work/probe" >/dev/null
tests=$(/usr/bin/python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["tests"]))' "$work/probe/report.json")

# best_of CPUS ARGS...: the lowest wall time in seconds of RUNS (default 5) runs of
# `metaroce run ARGS`.
best_of() {
  local cpus=$1 best=
  shift
  for ((i = 0; i < ${RUNS:-5}; i++)); do
    local t0 t1
    t0=$(date +%s.%N)
    taskset -c "$cpus" "$cli" run --quiet --no-progress --out "$work/run" "$@" >/dev/null
    t1=$(date +%s.%N)
    best=$(/usr/bin/python3 -c "import sys; a=float(sys.argv[1]); b=sys.argv[2]; print(min(a, float(b)) if b else a)" "$(echo "$t1 - $t0" | bc)" "$best")
  done
  echo "$best"
}
suite1=$(best_of 0)
empty1=$(best_of 0 --testcases "$work/empty" --repeat "$tests")
suite2=$(best_of 0-1 --jobs 2)
empty2=$(best_of 0-1 --testcases "$work/empty" --repeat "$tests" --jobs 2)
suite4=$(RUNS=3 best_of 0 --repeat 4)
suite16=$(RUNS=3 best_of 0 --repeat 16)
/usr/bin/python3 - "$tests" "$suite1" "$empty1" "$suite2" "$empty2" "$(nproc)" "$suite4" "$suite16" >"$out_dir/suite.json" <<'PY'
import json, sys
n = int(sys.argv[1]); s1, e1, s2, e2 = map(float, sys.argv[2:6])
s4, s16 = float(sys.argv[7]), float(sys.argv[8])
row = {"tests": n, "cores": int(sys.argv[6]),
       "suite_1core_s": s1, "empty_1core_s": e1, "per_test_ms": 1e3 * s1 / n,
       "fixed_per_test_ms": 1e3 * e1 / n, "fixed_share": e1 / s1,
       "suite_jobs2_s": s2, "empty_jobs2_s": e2, "jobs2_speedup": s1 / s2,
       "scale": [{"factor": 4, "wall_s": s4, "linearity": 4 * s1 / s4},
                 {"factor": 16, "wall_s": s16, "linearity": 16 * s1 / s16}],
       "target": "150 test purposes in under 5 s on one core",
       "target_met": s1 * 150 / n < 5}
print(json.dumps(row, indent=2))
print(f"suite: {n} test purposes, whole CLI run (parse, DUTs, captures, reports), best of 5", file=sys.stderr)
print(f"  one core : {s1:.3f} s ({1e3*s1/n:.2f} ms/test) | empty-script anchor x{n}: {e1:.3f} s "
      f"({1e3*e1/n:.2f} ms/test fixed, {100*e1/s1:.0f}% of the suite)", file=sys.stderr)
print(f"  --jobs 2 : {s2:.3f} s (x{s1/s2:.2f}) | anchor {e2:.3f} s", file=sys.stderr)
for k, t in ((4, s4), (16, s16)):
    print(f"  x{k:<2} ({k*n} test runs, one core): {t:.3f} s | {k} x the 1x time {k*s1:.3f} s | "
          f"ratio {k*s1/t:.2f} (1 or more: linear or better)", file=sys.stderr)
print(f"  target 150 in < 5 s on one core: {'met' if s1*150/n < 5 else 'NOT met'}", file=sys.stderr)
PY
echo "results: $out_dir/suite.json"
