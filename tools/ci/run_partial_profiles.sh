#!/usr/bin/env bash
# Bazel test: a DUT that claims less of Part II gets not applicable, never fail (issue 23).
# For each partial profile (testcases/profiles/metaroce-no-*.pics.json), the Ext suite on
# the embedded reference:
#   1. with the profile: nothing fails, some tests are not applicable, and every one of them
#      names a feature the profile withdraws in its `# pics:` predicate;
#   2. with the profile and a mutant that breaks that feature (as a DUT that does not have
#      it would): still nothing fails, the tests that would catch it not applicable;
#   3. with metaroce-full and the same mutant: the run fails, so step 2 is not a blind spot.
set -uo pipefail
metaroce=$1
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
fail() { echo "FAIL: $*"; exit 1; }

# REPORT FEATURES: every test passes or is not applicable, and those that are name one of
# FEATURES (comma-separated) in their `# pics:` predicate.
check_run() {
  python3 - "$@" <<'PY'
import json, re, sys
report, features = sys.argv[1], sys.argv[2].split(",")
tests = json.load(open(report))["tests"]
bad = [t["tp_id"] + " " + t["verdict"] for t in tests if t["verdict"] not in ("pass", "not-applicable")]
na = [t for t in tests if t["verdict"] == "not-applicable"]
stray = [t["tp_id"] for t in na if not any(re.search(r"\b" + re.escape(f) + r"\b", t["pics"]) for f in features)]
if bad:
    sys.exit("not passed: " + ", ".join(bad))
if not na:
    sys.exit("no test was not applicable")
if stray:
    sys.exit("not applicable without naming " + " or ".join(features) + ": " + ", ".join(stray))
print(f"{len(tests) - len(na)} pass, {len(na)} not applicable")
PY
}

for row in "metaroce-no-multipath ext.multipath,ext.pathprobe,ext.adaptive_ev ext-single-ev-multipath" \
           "metaroce-no-trim ext.trim ext-trim-records-psn" \
           "metaroce-no-cc ext.cc,ext.credit ext-cwnd-ignored"; do
  read -r profile features mutant <<<"$row"
  out="$tmp/$profile"
  "$metaroce" run testcases/ext --profile "$profile" --quiet --no-progress --out "$out" >"$out.log" 2>&1
  rc=$?
  if [[ $rc -ne 0 ]]; then tail -20 "$out.log"; fail "$profile: the run did not pass (exit $rc)"; fi
  said=$(check_run "$out/report.json" "$features" 2>&1) || fail "$profile: $said"
  echo "$profile: $said"

  "$metaroce" run testcases/ext --profile "$profile" --mutant "$mutant" --quiet --no-progress \
    --out "$out-mutant" >"$out-mutant.log" 2>&1
  rc=$?
  if [[ $rc -ne 0 ]]; then tail -20 "$out-mutant.log"; fail "$profile with $mutant: the run did not pass (exit $rc)"; fi
  said=$(check_run "$out-mutant/report.json" "$features" 2>&1) || fail "$profile with $mutant: $said"
  echo "$profile with $mutant: $said"

  "$metaroce" run testcases/ext --profile metaroce-full --mutant "$mutant" --quiet --no-progress \
    --out "$out-full" >"$out-full.log" 2>&1
  rc=$?
  [[ $rc -eq 1 ]] || fail "metaroce-full with $mutant: exit $rc, not 1 (a failed test)"
  echo "metaroce-full with $mutant: $(tail -1 "$out-full.log")"
done
echo "PASS: each partial profile makes its feature's tests not applicable, never failed"
