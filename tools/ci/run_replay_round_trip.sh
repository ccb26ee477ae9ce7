#!/usr/bin/env bash
# Bazel test (issue 8): captures of the embedded reference's own runs become test cases
# (`replay --to-script`) that pass when replayed against the reference, and fail against
# a mutated one, so a replay can tell a conforming responder from a broken one.
set -uo pipefail
metaroce=$1
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
# Responder-side exchanges: SEND, WRITE, READ (one and many packets), both atomics, a
# sequence NAK, a duplicate READ, an RNR NAK.
tests="RC-WF-001,RC-WF-008,RC-RD-001,RC-RD-005,RC-AT-001,RC-AT-002,RC-PSN-004,RC-RD-007,RC-RNR-001"
"$metaroce" run --quiet --filter "$tests" --out "$tmp/source" >/dev/null || {
  echo "FAIL: the source run did not pass"; exit 1; }
fails=0
for capture in "$tmp"/source/captures/*.pcapng; do
  tp=$(basename "$capture" .pcapng)
  if ! "$metaroce" replay "$capture" --to-script "$tmp/$tp.mrt" 2>"$tmp/$tp.err"; then
    echo "FAIL: replay --to-script $tp: $(cat "$tmp/$tp.err")"; fails=$((fails + 1)); continue
  fi
  grep -q '^0 *<' "$tmp/$tp.mrt" || { echo "FAIL: $tp.mrt has no first request"; fails=$((fails + 1)); }
  if ! "$metaroce" replay "$capture" --dut reference --out "$tmp/replay-$tp" >"$tmp/$tp.log" 2>&1; then
    echo "FAIL: replaying $tp against the reference:"; cat "$tmp/$tp.log"; fails=$((fails + 1))
    continue
  fi
  if "$metaroce" replay "$capture" --dut reference --mutant wrong-msn \
      --out "$tmp/mutant-$tp" >"$tmp/$tp.mutant.log" 2>&1; then
    echo "FAIL: replaying $tp against the wrong-msn mutant passed"; fails=$((fails + 1))
  fi
  echo "ok: $tp round trip ($(grep -c '^[0-9+*]' "$tmp/$tp.mrt") packet lines)"
done
n=$(ls "$tmp"/source/captures/*.pcapng | wc -l)
[[ $n -eq 9 ]] || { echo "FAIL: expected 9 captures, got $n"; exit 1; }
exit $((fails > 0))
