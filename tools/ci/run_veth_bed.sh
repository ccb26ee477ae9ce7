#!/usr/bin/env bash
# Bazel test: the one-cable test bed a vendor builds first. `metaroce agent --backend
# reference` in one network namespace and `metaroce run --dut agent://` in another, joined
# by ONE veth pair that carries both the control connection (kernel addresses 198.18.0.3
# and .4) and the RoCE frames (the reference endpoint 198.18.0.2 on libpcap). Without
# --pixit the run takes veth.pixit.json and the DUT's addresses from the agent.
#   1. the base suite passes (CNP tests excepted: their 10-50 us spacings are finer than
#      a real-clock tester keeps, issue #26; and RC-RT-017, whose DUT gives up after three
#      16.8 ms timeouts while this build's tester, on libpcap between control round trips,
#      first answers its 128-packet window after about 50 ms: both captures of 12-04 show
#      the DUT's RETRY_EXC_ERR before the tester's first ACK, issue #26); a test that did
#      not pass runs once more and must pass then (a loaded 2-core host may miss a window
#      once);
#   2. a PIXIT that names other DUT addresses than the agent's is refused, naming both;
#   3. a mutated agent fails the test that targets it.
# Everything is created here and deleted on exit; addresses from 198.18.0.0/15 only.
set -uo pipefail
metaroce=$(realpath "$1")
if [[ $(id -u) -ne 0 ]]; then echo "SKIPPED: needs root for network namespaces"; exit 0; fi
if ! ip netns list >/dev/null 2>&1; then echo "SKIPPED: no 'ip netns'"; exit 0; fi

tmp="${TEST_TMPDIR:-$(mktemp -d)}"
a="mrbed-a-$$"
b="mrbed-b-$$"
agent_pid=""
cleanup() {
  if [[ -n "$agent_pid" ]]; then kill "$agent_pid" 2>/dev/null; wait "$agent_pid" 2>/dev/null; fi
  ip netns del "$a" 2>/dev/null
  ip netns del "$b" 2>/dev/null
}
trap cleanup EXIT

ip netns add "$a" && ip netns add "$b" || { echo "FAIL: ip netns add"; exit 1; }
ip link add mrbed0 netns "$a" mtu 9000 type veth peer name mrbed1 netns "$b" mtu 9000 ||
  { echo "FAIL: ip link add veth"; exit 1; }
ip -n "$a" link set lo up && ip -n "$b" link set lo up
ip -n "$a" addr add 198.18.0.3/24 dev mrbed0 && ip -n "$b" addr add 198.18.0.4/24 dev mrbed1
ip -n "$a" link set mrbed0 up && ip -n "$b" link set mrbed1 up
printf 'veth-bed-%s\n' "$$" >"$tmp/token"

start_agent() {  # [--mutant NAME]: the reference agent on the veth's first end
  if [[ -n "$agent_pid" ]]; then kill "$agent_pid" 2>/dev/null; wait "$agent_pid" 2>/dev/null; fi
  ip netns exec "$a" "$metaroce" agent --backend reference --listen 198.18.0.3:7471 \
    --iface mrbed0 --ip 198.18.0.2 --ipv6 2001:db8::2 --mac 02:00:00:00:00:02 \
    --token-file "$tmp/token" --seed 7 "$@" >"$tmp/agent.log" 2>&1 &
  agent_pid=$!
  for _ in $(seq 50); do  # bounded: 5 s for the agent to listen
    ip netns exec "$a" ss -ltn 2>/dev/null | grep -q '198.18.0.3:7471' && return 0
    sleep 0.1
  done
  echo "FAIL: the agent did not listen"; cat "$tmp/agent.log"; exit 1
}

run_on_bed() {  # OUT ARGS...: metaroce run from the veth's second end
  local out=$1
  shift
  ip netns exec "$b" "$metaroce" run --dut agent://198.18.0.3:7471 --iface mrbed1 \
    --token-file "$tmp/token" --no-progress --quiet --out "$out" "$@"
}

# The tests that did not pass, comma-separated.
not_passed() {
  python3 - "$1" <<'PY'
import json, sys
tests = json.load(open(sys.argv[1]))["tests"]
print(",".join(t["tp_id"] for t in tests if t["verdict"] not in ("pass", "not-applicable")))
PY
}

# 1. The base suite but the CNP area and RC-RT-017 (see above).
start_agent
tests=()
while IFS= read -r f; do tests+=("$f"); done < <(
  find testcases/base -name '*.mrt' ! -path '*/cnp/*' ! -name 'RC-RT-017.mrt' | sort)
run_on_bed "$tmp/suite" "${tests[@]}" >"$tmp/suite.log" 2>&1
tail -1 "$tmp/suite.log"
grep -q "from the DUT's agent into the PIXIT" "$tmp/suite.log" ||
  grep -q "pixit testcases/pixit/veth.pixit.json" "$tmp/suite.log" ||
  { echo "FAIL: the run did not take veth.pixit.json"; head -5 "$tmp/suite.log"; exit 1; }
count=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["tests"]))' \
  "$tmp/suite/report.json" 2>/dev/null || echo 0)
if [[ $count -lt 150 ]]; then echo "FAIL: only $count tests ran"; tail -20 "$tmp/suite.log"; exit 1; fi
again=$(not_passed "$tmp/suite/report.json")
if [[ -n "$again" ]]; then
  echo "first run, not passed: $again (once more)"
  run_on_bed "$tmp/again" --filter "$again" >"$tmp/again.log" 2>&1
  still=$(not_passed "$tmp/again/report.json")
  if [[ -n "$still" ]]; then
    echo "FAIL: not passed twice: $still"
    grep -A3 -E "^(FAIL|INCONC|ERROR)" "$tmp/again.log" | head -40
    exit 1
  fi
fi

# 2. A named PIXIT with another DUT MAC than the agent's: refused before any test.
sed 's/"02:00:00:00:00:02"/"02:00:00:00:00:09"/' testcases/pixit/veth.pixit.json >"$tmp/wrong.pixit.json"
grep -q '02:00:00:00:00:09' "$tmp/wrong.pixit.json" || { echo "FAIL: could not plant the MAC"; exit 1; }
run_on_bed "$tmp/wrong" --pixit "$tmp/wrong.pixit.json" --filter RC-WF-001 >"$tmp/wrong.log" 2>&1
rc=$?
if [[ $rc -ne 2 ]] || ! grep -q "dut.mac is 02:00:00:00:00:09, but the DUT at agent://198.18.0.3:7471 reports 02:00:00:00:00:02" "$tmp/wrong.log"; then
  echo "FAIL: a PIXIT with the wrong DUT MAC was not refused naming both (exit $rc)"
  cat "$tmp/wrong.log"
  exit 1
fi

# 3. A mutated agent fails the test that targets it.
start_agent --mutant two-naks-per-sequence-error
run_on_bed "$tmp/mutant" --filter RC-PSN-004 >"$tmp/mutant.log" 2>&1
rc=$?
if [[ $rc -ne 1 ]] || ! grep -q "^FAIL   RC-PSN-004" "$tmp/mutant.log"; then
  echo "FAIL: the mutated agent was not failed by RC-PSN-004 (exit $rc)"
  cat "$tmp/mutant.log"
  exit 1
fi
echo "PASS: the base suite on one veth, a wrong PIXIT refused, a mutant failed"
