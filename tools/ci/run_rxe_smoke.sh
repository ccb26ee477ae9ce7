#!/usr/bin/env bash
# Bazel test: a bounded smoke run of the suite against Linux rxe in the QEMU guest, so a
# change that breaks interop fails CI. Then the same run interrupted (SIGINT) once the
# guest is up: it must stop, write its reports and leave no QEMU and no namespace behind.
# Skips, saying why, where the guest cannot run (not root, no /dev/net/tun, no QEMU).
set -uo pipefail
metaroce=$1
if [[ $(id -u) -ne 0 ]]; then echo "SKIPPED: needs root for network namespaces"; exit 0; fi
if [[ ! -c /dev/net/tun ]]; then echo "SKIPPED: no /dev/net/tun"; exit 0; fi
if ! command -v qemu-system-x86_64 >/dev/null; then echo "SKIPPED: no qemu-system-x86_64"; exit 0; fi
if ! compgen -G "/boot/vmlinuz-*" >/dev/null; then echo "SKIPPED: no /boot/vmlinuz-*"; exit 0; fi

tmp="${TEST_TMPDIR:-$(mktemp -d)}"
# One test purpose per area that rxe passes (reports/rxe/, docs/interop.md).
tests="RC-WF-001,RC-WF-008,RC-ICRC-001,RC-PSN-004,RC-ACK-001,RC-CQ-001,RC-QS-001,RC-RT-001"
tests+=",RC-RNR-001,RC-RD-001,RC-AT-001,RC-MP-001"

leftovers() {  # $1: the pid of a finished run
  local ns qemu
  ns=$(ip netns list | grep -c "^mrt-$1-") || true
  qemu=$(pgrep -f "console $2/guest-console.log|$2/guest-console.log" | wc -l)
  if [[ $ns -ne 0 || $qemu -ne 0 ]]; then
    echo "FAIL: the run $1 left $ns namespace(s) and $qemu QEMU process(es)"
    ip netns list
    return 1
  fi
}

out="$tmp/smoke"
"$metaroce" run --dut rxe --filter "$tests" --out "$out" &
pid=$!
wait $pid
rc=$?
leftovers $pid "$out" || exit 1
if [[ $rc -ne 0 ]]; then
  echo "FAIL: the rxe smoke run exited $rc"
  cat "$out/summary.md" 2>/dev/null
  tail -20 "$out/guest-console.log" 2>/dev/null
  exit 1
fi
passed=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['counts'].get('pass', 0))" "$out/report.json")
want=$(tr ',' '\n' <<<"$tests" | wc -l)
if [[ $passed -ne $want ]]; then
  echo "FAIL: $passed of $want test purposes passed on rxe"
  exit 1
fi
echo "rxe smoke: $passed of $want passed"

# Ctrl-C once the guest is up: reports written, cancelled, nothing left behind (bounded).
out="$tmp/interrupted"
log="$tmp/interrupted.log"
"$metaroce" run --dut rxe --filter "RC-WF-*,RC-PSN-*" --out "$out" >"$log" 2>&1 &
pid=$!
for _ in $(seq 1 240); do
  grep -q '^PASS\|^FAIL' "$log" && break
  sleep 0.5
done
kill -INT $pid
for _ in $(seq 1 120); do
  kill -0 $pid 2>/dev/null || break
  sleep 0.5
done
if kill -0 $pid 2>/dev/null; then
  echo "FAIL: the interrupted run did not stop within 60 s"
  kill -KILL $pid
  exit 1
fi
wait $pid
leftovers $pid "$out" || exit 1
cancelled=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['cancelled'])" "$out/report.json")
if [[ $cancelled != True ]]; then
  echo "FAIL: the interrupted run's report.json says cancelled=$cancelled"
  cat "$log"
  exit 1
fi
echo "rxe interrupted run: stopped, reported (cancelled), nothing left behind"
