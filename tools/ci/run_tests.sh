#!/usr/bin/env bash
# The project's own tests, as `./metaroce test` runs them:
#   1. clang-format (Google style, 100 columns) over every C++ file
#   2. clang-tidy (.clang-tidy) over every C++ source
#   3. bazel test //... under ASan + UBSan   (every unit, oracle and integration test)
#   4. bazel test of the tests tagged "no-sanitizer", unsanitized (timing-bound ones, the QEMU
#      guest, the -c opt CLI)
#   5. the tests tagged "threads" under ThreadSanitizer
#   6. libFuzzer on the wire parsers and the test-case parser, for a bounded time, with clang
# Each test runs once under ASan + UBSan or, if it cannot, once without: running every test
# a second time unsanitized found nothing the sanitized run did not, and cost half of a cold
# CI run (the build of every test twice). --quick runs every test once, unsanitized.
# Every Bazel test target counts once per configuration, each other step once. A target
# that skipped any of its cases (GoogleTest's GTEST_SKIP, or a script's "SKIPPED:" line) is
# counted as skipped, not passed; under CI (CI=true, which .ci/run sets) a skip is a
# failure, since ./metaroce installs every package a test needs and CI runs as root.
# The line before the last is "N skipped"; the last is "N passed, N failed" (CI reads it).
#
#   tools/ci/run_tests.sh [--quick]   --quick skips the sanitizer run and the fuzzer
set -uo pipefail
cd "$(dirname "$0")/../.."

QUICK=0
[[ "${1:-}" == "--quick" ]] && QUICK=1
FUZZ_SECONDS=${METAROCE_FUZZ_SECONDS:-30}
passed=0
failed=0
skipped=0
failures=()
skips=()
LOG_DIR=$(mktemp -d /tmp/metaroce-test.XXXXXX)

# Each step's wall time, printed at the end, so that a slow CI run shows where it went (the
# 45-minute target of `./metaroce test`; CI's limit is 90).
timings=()
step_name=""
step_start=$SECONDS
end_step() {
  [[ -n "$step_name" ]] && timings+=("$(printf '%5d s  %s' $((SECONDS - step_start)) "$step_name")")
  step_name=""
}
step() {
  end_step
  step_name="$*"
  step_start=$SECONDS
  printf '\n=== %s\n' "$*"
}
ok() { passed=$((passed + 1)); printf 'PASS %s\n' "$1"; }
bad() { failed=$((failed + 1)); failures+=("$1"); printf 'FAIL %s\n' "$1"; }
skip() {
  if [[ "${CI:-}" == "true" ]]; then
    bad "$1 (skipped, and under CI a skip is a failure)"
  else
    skipped=$((skipped + 1)); skips+=("$1"); printf 'SKIP %s\n' "$1"
  fi
}

cpp_files() { git ls-files '*.h' '*.cpp' | grep -v '^third_party/'; }

step "clang-format"
if unformatted=$(cpp_files | xargs clang-format --dry-run --Werror 2>&1) && [[ -z "$unformatted" ]]; then
  ok "clang-format ($(cpp_files | wc -l) files)"
else
  printf '%s\n' "$unformatted" | head -40
  bad "clang-format (run ./metaroce format)"
fi

step "clang-tidy"
# clang-tidy spends seconds per file on the big headers (nlohmann, CLI11, gtest): a file
# whose text, project headers, .clang-tidy and clang-tidy are as they were when it last
# passed is not checked again (tools/ci/tidy_keys.py, tidy_file.sh; the record is in
# ~/.cache/metaroce-tidy, shared by every checkout on the machine).
tidy_log="$LOG_DIR/clang-tidy.log"
tidy_cache="${HOME:-/root}/.cache/metaroce-tidy"
mkdir -p "$tidy_cache"
tidy_files=$(git ls-files '*.cpp' | grep -vc '^third_party/')
if git ls-files '*.cpp' | grep -v '^third_party/' | xargs python3 tools/ci/tidy_keys.py |
    xargs -P "$(nproc)" -n 2 tools/ci/tidy_file.sh "$tidy_cache" >"$tidy_log" 2>&1; then
  ok "clang-tidy ($tidy_files files)"
else
  grep -E '^/work|error:|warning:' "$tidy_log" | grep -v 'warnings generated' | head -40
  bad "clang-tidy (log: $tidy_log)"
fi

# Runs bazel test with the given flags and counts each test target.
bazel_tests() {
  local label=$1
  shift
  local log="$LOG_DIR/bazel-$label.log"
  bazel test --noshow_progress --test_output=errors --keep_going "$@" //... >"$log" 2>&1
  local rc=$?
  local results
  results=$(grep -E '^//[^ ]+ +(\(cached\) )?(PASSED|FAILED|TIMEOUT|NO STATUS|FAILED TO BUILD|FLAKY|INCOMPLETE)' "$log")
  if [[ -z "$results" ]]; then
    tail -40 "$log"
    bad "bazel test [$label]: no test ran (exit $rc, log: $log)"
    return
  fi
  while read -r target rest; do
    if [[ "$rest" == *PASSED* ]]; then
      local reason
      reason=$(tools/ci/skip_reason.sh "bazel-testlogs/$(tr : / <<<"${target#//}")")
      if [[ -n "$reason" ]]; then
        skip "$target [$label]: $reason"
      else
        ok "$target [$label]"
      fi
    else
      bad "$target [$label]: ${rest%% in *}"
    fi
  done <<<"$results"
  if [[ $rc -ne 0 && $rc -ne 3 ]]; then
    grep -E 'ERROR|error:' "$log" | head -20
    [[ $rc -ne 4 ]] && bad "bazel test [$label]: exit $rc (log: $log)"
  fi
  grep -B2 -A30 -E '^(\[  FAILED  \]|FAIL: )' "$log" | head -80 || true
}

if [[ $QUICK -eq 1 ]]; then
  step "bazel test //..."
  bazel_tests default
else
  step "bazel test //... under ASan and UBSan"
  # --build_tag_filters too: what only the no-sanitizer tests use (the -c opt CLI of
  # //harness/cli:metaroce_opt, about 7 minutes of compiling) is not built sanitized.
  bazel_tests asan+ubsan --config=sanitize --test_tag_filters=-no-sanitizer \
    --build_tag_filters=-no-sanitizer

  step "bazel test of the tests that cannot run sanitized (tag: no-sanitizer)"
  bazel_tests default --build_tests_only --test_tag_filters=no-sanitizer

  step "bazel test of the multi-threaded code under ThreadSanitizer (tag: threads)"
  bazel_tests tsan --config=tsan --build_tests_only --test_tag_filters=threads

  step "libFuzzer, ${FUZZ_SECONDS}s per target (clang, ASan + UBSan)"
  tools/ci/run_fuzzers.sh "$FUZZ_SECONDS" "$LOG_DIR" && ok "libFuzzer (${FUZZ_SECONDS}s per target)" ||
    bad "libFuzzer (logs: $LOG_DIR)"
fi

end_step
echo
echo "Time per step:"
printf '  %s\n' "${timings[@]}"
# The slowest test targets of every configuration, as Bazel reported them.
echo "Slowest test targets:"
for log in "$LOG_DIR"/bazel-*.log; do
  [[ -f "$log" ]] || continue
  label=$(basename "$log" .log)
  grep -E '^//[^ ]+ +(PASSED|FAILED|FLAKY|TIMEOUT) in [0-9.]+s' "$log" |
    sed -E "s/^(\/\/[^ ]+) +[A-Z]+ in ([0-9.]+)s.*/\2 \1 [${label#bazel-}]/"
done | sort -rn | head -8 | awk '{printf "  %8.1f s  %s %s\n", $1, $2, $3}'
echo
if [[ ${#failures[@]} -gt 0 ]]; then
  echo "Failed:"
  printf '  %s\n' "${failures[@]}"
fi
if [[ ${#skips[@]} -gt 0 ]]; then
  echo "Skipped:"
  printf '  %s\n' "${skips[@]}"
fi
echo "$skipped skipped"
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
