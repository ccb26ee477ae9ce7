#!/usr/bin/env bash
# Bazel test (issue 25): a run split into shards and merged is the unsharded run.
#   run_shard_merge.sh METAROCE COMPARE_RUN_DIRS
# The whole suite on the embedded reference once unsharded, then in 3 shards by count and in
# 2 shards balanced by the first run's durations: each merge must be byte for byte the
# unsharded run's reports and captures but for timings (compare_run_dirs.py). Bazel's shard
# variables choose the shard when --shard is not given. merge refuses a missing shard, a
# shard of another seed and a whole run; a merged mutant run fails (exit 1).
set -uo pipefail
metaroce=$1
compare=$2
export METAROCE_ROOT=${METAROCE_ROOT:-$PWD}
# This test is not sharded by Bazel: whatever shard variables it was given are not its runs'.
unset TEST_TOTAL_SHARDS TEST_SHARD_INDEX TEST_SHARD_STATUS_FILE
dir=$(mktemp -d "${TEST_TMPDIR:-/tmp}/shard-merge.XXXXXX")
trap 'rm -rf "$dir"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

run() { "$metaroce" run --quiet --no-progress "$@" > "$dir/last.log" 2>&1; }

# expect_exit CODE WHAT CMD...: CMD exits CODE; its output is kept in last.log.
expect_exit() {
  local want=$1 what=$2
  shift 2
  "$@" > "$dir/last.log" 2>&1
  local rc=$?
  [[ $rc -eq $want ]] || { fail "$what: exit $rc, expected $want"; cat "$dir/last.log"; }
}

run --out "$dir/whole" || fail "the unsharded run: exit $?"

for i in 1 2 3; do
  run --shard "$i/3" --out "$dir/count$i" || fail "shard $i/3: exit $?"
done
expect_exit 0 "merging 3 shards" "$metaroce" merge "$dir/count1" "$dir/count2" "$dir/count3" \
  --out "$dir/count"
python3 "$compare" "$dir/whole" "$dir/count" || fail "3 shards by count merged are not the run"

for i in 1 2; do
  run --shard "$i/2" --balance-from "$dir/whole/report.json" --out "$dir/lpt$i" ||
    fail "shard $i/2 balanced: exit $?"
done
grep -q '"balance": "durations of ' "$dir/lpt1/report.json" || fail "shard 1/2 does not say it was balanced by durations"
expect_exit 0 "merging 2 balanced shards" "$metaroce" merge "$dir/lpt2" "$dir/lpt1" --out "$dir/lpt"
python3 "$compare" "$dir/whole" "$dir/lpt" || fail "2 balanced shards merged are not the run"

# Bazel's protocol: 0-based index, and the status file touched.
TEST_TOTAL_SHARDS=3 TEST_SHARD_INDEX=1 TEST_SHARD_STATUS_FILE="$dir/status" \
  run --out "$dir/bazel2" || fail "the run as Bazel's shard 1 of 3: exit $?"
[[ -e "$dir/status" ]] || fail "TEST_SHARD_STATUS_FILE was not touched"
python3 - "$dir/bazel2/report.json" "$dir/count2/report.json" <<'PY' || fail "Bazel's shard 1 is not --shard 2/3"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert a["shard"]["index"] == 2 and a["shard"]["total"] == 3, a["shard"]
assert [t["tp_id"] for t in a["tests"]] == [t["tp_id"] for t in b["tests"]]
PY

# What merge refuses, with the reason.
expect_exit 2 "a missing shard" "$metaroce" merge "$dir/count1" "$dir/count3" --out "$dir/m1"
grep -q "shards missing: 2 of 3" "$dir/last.log" || fail "no 'shards missing: 2 of 3'"
run --shard 2/3 --seed 2 --out "$dir/seed2" || fail "shard 2/3 with seed 2: exit $?"
expect_exit 2 "a shard of another seed" "$metaroce" merge "$dir/count1" "$dir/seed2" "$dir/count3" \
  --out "$dir/m2"
grep -q "shards of different runs: seed is 1 in .* but 2 in " "$dir/last.log" || fail "seed difference not named"
expect_exit 2 "a whole run" "$metaroce" merge "$dir/whole" --out "$dir/m3"
grep -q "not a shard" "$dir/last.log" || fail "a whole run not refused as 'not a shard'"
expect_exit 2 "--shard 0/3" "$metaroce" run --shard 0/3 --out "$dir/m4"
grep -q "count from 1" "$dir/last.log" || fail "--shard 0/3 not explained"

# A mutant run split and merged fails as the unsharded one does.
for i in 1 2; do
  run --shard "$i/2" --filter 'RC-PSN-*' --mutant nak-carries-packet-psn --out "$dir/mut$i"
done
expect_exit 1 "merging a mutant run's shards" "$metaroce" merge "$dir/mut1" "$dir/mut2" --out "$dir/mut"
grep -q 'mutant-banner">Mutated reference' "$dir/mut/index.html" || fail "the merged mutant run has no banner"

if [[ $failures -gt 0 ]]; then
  echo "$failures failures"
  exit 1
fi
echo "shards merged into the unsharded run: by count (3) and by durations (2); refusals named"
