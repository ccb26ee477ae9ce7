#!/usr/bin/env bash
# Bazel test: the test beds a vendor builds first. `metaroce agent --backend reference` in
# one network namespace and `metaroce run --dut agent://` in another, on the real clock:
#   1. one cable: ONE veth pair carries both the control connection (kernel addresses
#      198.18.0.3 and .4) and the RoCE frames (the reference endpoint 198.18.0.2 on
#      libpcap); without --pixit the run takes veth.pixit.json and the DUT's addresses from
#      the agent. The whole base suite passes (a test that fails runs once more, named in
#      the log, and must pass then), and every test's capture is in time order;
#   2. two cables: the control connection on one veth pair, the RoCE frames on another;
#      the whole base suite passes again;
#   3. two cables with the agent's data path on DPDK (`agent --io dpdk`: a net_af_packet
#      device on its veth, reference/io/dpdk): the whole base suite passes again;
#   4. a PIXIT that names other DUT addresses than the agent's is refused, naming both;
#   5. a mutated agent fails the test that targets it;
#   6. one cable with the agent's clock dilated 100x (`agent --time-dilation 100`): a PIXIT
#      for another dilation is refused naming both, and the Ext suite (Part II, profile
#      metaroce-full) passes with veth-dilated.pixit.json, but for the tests that need the
#      tester to answer within microseconds of bed time (named below; a libpcap tester
#      cannot at 100x);
#   7. three of those at 1000x;
#   8. the same Ext suite at 200x (fabric-dilated.pixit.json) with the RoCE frames through
#      `metaroce fabric`, a leaf-spine on the real clock in a third namespace (ECMP over four
#      spines, egress queues), the control connection on the first cable.
# The binary is the -c opt build users run (//harness/cli:metaroce_opt): the tester must
# answer a DUT's 128-packet window inside the DUT's 16.8 ms ACK timeout (RC-RT-017).
# Everything is created here and deleted on exit; addresses from 198.18.0.0/15 only.
set -uo pipefail
metaroce=$(realpath "$1")
if [[ $(id -u) -ne 0 ]]; then echo "SKIPPED: needs root for network namespaces"; exit 0; fi
if ! ip netns list >/dev/null 2>&1; then echo "SKIPPED: no 'ip netns'"; exit 0; fi

tmp="${TEST_TMPDIR:-$(mktemp -d)}"
a="mrbed-a-$$"
b="mrbed-b-$$"
f="mrbed-f-$$"  # the fabric's (step 8)
agent_pid=""
fabric_pid=""
agent_ipv6=2001:db8::2
show_on_fail=""  # a log that explains a failure of the step running (the fabric's)
cleanup() {
  local rc=$?
  if [[ $rc -ne 0 && -n "$show_on_fail" && -f "$show_on_fail" ]]; then
    echo "--- $show_on_fail"
    cat "$show_on_fail"
  fi
  if [[ -n "$agent_pid" ]]; then kill "$agent_pid" 2>/dev/null; wait "$agent_pid" 2>/dev/null; fi
  if [[ -n "$fabric_pid" ]]; then kill "$fabric_pid" 2>/dev/null; wait "$fabric_pid" 2>/dev/null; fi
  ip netns del "$a" 2>/dev/null
  ip netns del "$b" 2>/dev/null
  ip netns del "$f" 2>/dev/null
}
trap cleanup EXIT

ip netns add "$a" && ip netns add "$b" && ip netns add "$f" || { echo "FAIL: ip netns add"; exit 1; }
ip link add mrbed0 netns "$a" mtu 9000 type veth peer name mrbed1 netns "$b" mtu 9000 ||
  { echo "FAIL: ip link add veth"; exit 1; }
ip -n "$a" link set lo up && ip -n "$b" link set lo up
ip -n "$a" addr add 198.18.0.3/24 dev mrbed0 && ip -n "$b" addr add 198.18.0.4/24 dev mrbed1
ip -n "$a" link set mrbed0 up && ip -n "$b" link set mrbed1 up
# The second cable: RoCE frames only, no kernel addresses.
ip link add mrbed2 netns "$a" mtu 9000 type veth peer name mrbed3 netns "$b" mtu 9000 ||
  { echo "FAIL: ip link add the second veth"; exit 1; }
ip -n "$a" link set mrbed2 up && ip -n "$b" link set mrbed3 up
printf 'veth-bed-%s\n' "$$" >"$tmp/token"

data_a=mrbed0  # the agent's data interface: mrbed0 on one cable, mrbed2 on two
data_b=mrbed1  # the tester's
start_agent() {  # [--mutant NAME] [--io dpdk]: the reference agent in namespace a
  if [[ -n "$agent_pid" ]]; then kill "$agent_pid" 2>/dev/null; wait "$agent_pid" 2>/dev/null; fi
  ip netns exec "$a" "$metaroce" agent --backend reference --listen 198.18.0.3:7471 \
    --iface "$data_a" --ip 198.18.0.2 --ipv6 "$agent_ipv6" --mac 02:00:00:00:00:02 \
    --token-file "$tmp/token" --seed 7 "$@" >"$tmp/agent.log" 2>&1 &
  agent_pid=$!
  for _ in $(seq 50); do  # bounded: 5 s for the agent to listen
    ip netns exec "$a" ss -ltn 2>/dev/null | grep -q '198.18.0.3:7471' && return 0
    sleep 0.1
  done
  echo "FAIL: the agent did not listen"; cat "$tmp/agent.log"; exit 1
}

run_on_bed() {  # OUT ARGS...: metaroce run in namespace b
  local out=$1
  shift
  ip netns exec "$b" "$metaroce" run --dut agent://198.18.0.3:7471 --iface "$data_b" \
    --token-file "$tmp/token" --no-progress --quiet --out "$out" "$@"
}

# The tests that did not pass, comma-separated; with "strict", not applicable counts too
# (the Ext suite on the reference: every test applies, so none may be withdrawn).
not_passed() {
  python3 - "$@" <<'PY'
import json, sys
tests = json.load(open(sys.argv[1]))["tests"]
ok = ("pass",) if len(sys.argv) > 2 else ("pass", "not-applicable")
print(",".join(t["tp_id"] for t in tests if t["verdict"] not in ok))
PY
}

# The whole base suite on the bed as it is wired now; every test passes at its first run.
suite_on_bed() {  # NAME
  local out="$tmp/$1"
  run_on_bed "$out" testcases/base >"$out.log" 2>&1
  echo "$1: $(tail -1 "$out.log")"
  grep -q "from the DUT's agent into the PIXIT" "$out.log" ||
    grep -q "pixit testcases/pixit/veth.pixit.json" "$out.log" ||
    { echo "FAIL: $1: the run did not take veth.pixit.json"; head -5 "$out.log"; exit 1; }
  local count
  count=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["tests"]))' \
    "$out/report.json" 2>/dev/null || echo 0)
  if [[ $count -lt 220 ]]; then
    echo "FAIL: $1: only $count tests ran"
    tail -20 "$out.log"
    exit 1
  fi
  python3 tools/ci/check_capture_order.py "$out" || { echo "FAIL: $1: captures out of time order"; exit 1; }
  local failed
  failed=$(not_passed "$out/report.json")
  if [[ -n "$failed" ]]; then
    # About one test run in 2,000 still fails on an idle host, the agent answering late
    # (issue 26's closing note): such a test runs once more and must pass then; it is named
    # here, so that a rate above that shows.
    echo "$1: not passed at the first run: $failed (once more)"
    grep -A3 -E "^(FAIL|INCONC|ERROR)" "$out.log" | head -20
    run_on_bed "$out-again" --filter "$failed" >"$out-again.log" 2>&1
    local still
    still=$(not_passed "$out-again/report.json")
    if [[ -n "$still" || ! -f "$out-again/report.json" ]]; then
      echo "FAIL: $1: not passed twice: ${still:-no report}"
      grep -A3 -E "^(FAIL|INCONC|ERROR)" "$out-again.log" | head -40
      exit 1
    fi
  fi
}

# 1. One cable.
start_agent
suite_on_bed one-cable

# 2. Two cables: RoCE frames on mrbed2-mrbed3, control on mrbed0-mrbed1.
data_a=mrbed2
data_b=mrbed3
start_agent
suite_on_bed two-cables

# 3. Two cables, the agent's RoCE frames through DPDK instead of libpcap.
start_agent --io dpdk
grep -q "backend reference on dpdk:" "$tmp/agent.log" ||
  { echo "FAIL: the agent is not on DPDK"; cat "$tmp/agent.log"; exit 1; }
suite_on_bed two-cables-dpdk
data_a=mrbed0
data_b=mrbed1
start_agent

# 4. A named PIXIT with another DUT MAC than the agent's: refused before any test.
sed 's/"02:00:00:00:00:02"/"02:00:00:00:00:09"/' testcases/pixit/veth.pixit.json >"$tmp/wrong.pixit.json"
grep -q '02:00:00:00:00:09' "$tmp/wrong.pixit.json" || { echo "FAIL: could not plant the MAC"; exit 1; }
run_on_bed "$tmp/wrong" --pixit "$tmp/wrong.pixit.json" --filter RC-WF-001 >"$tmp/wrong.log" 2>&1
rc=$?
if [[ $rc -ne 2 ]] || ! grep -q "dut.mac is 02:00:00:00:00:09, but the DUT at agent://198.18.0.3:7471 reports 02:00:00:00:00:02" "$tmp/wrong.log"; then
  echo "FAIL: a PIXIT with the wrong DUT MAC was not refused naming both (exit $rc)"
  cat "$tmp/wrong.log"
  exit 1
fi

# 5. A mutated agent fails the test that targets it.
start_agent --mutant two-naks-per-sequence-error
run_on_bed "$tmp/mutant" --filter RC-PSN-004 >"$tmp/mutant.log" 2>&1
rc=$?
if [[ $rc -ne 1 ]] || ! grep -q "^FAIL   RC-PSN-004" "$tmp/mutant.log"; then
  echo "FAIL: the mutated agent was not failed by RC-PSN-004 (exit $rc)"
  cat "$tmp/mutant.log"
  exit 1
fi
# 6. The Ext suite on one cable, the agent's clock dilated 100x.
start_agent --time-dilation 100
grep -q "time dilated 100x" "$tmp/agent.log" || { echo "FAIL: the agent is not dilated"; cat "$tmp/agent.log"; exit 1; }
run_on_bed "$tmp/undilated" --filter EXT-NEG-001 --profile metaroce-full >"$tmp/undilated.log" 2>&1
rc=$?
if [[ $rc -ne 2 ]] || ! grep -q "dilated 100x (capabilities time_dilation) but .*veth.pixit.json states link.time_dilation 1" "$tmp/undilated.log"; then
  echo "FAIL: a PIXIT for an undilated bed was not refused naming both (exit $rc)"
  cat "$tmp/undilated.log"
  exit 1
fi
# The tests whose verdict needs the tester's answer within microseconds of bed time (10 us
# of bed time is 1 ms of the host at 100x): EXT-CC-005 (its RTT sample must stay under
# base_rtt + T_SC_TARGET_QDELAY), EXT-PF-011 and EXT-PF-012 (goodput and EV blame under CC
# at 75 Gbit/s of bed time), EXT-CR-002 (credit grants 1.37 us of bed time apart, judged
# exactly on the capture's stamps, which jitter by ~10 us of the host). The last three run at
# 1000x below; EXT-CC-005 does not pass there either (docs/interop.md).
needs_faster="EXT-CC-005 EXT-CR-002 EXT-PF-011 EXT-PF-012"
ext_tests=$(python3 - "$needs_faster" <<'PY'
import pathlib, re, sys
skip = set(sys.argv[1].split())
ids = []
for f in sorted(pathlib.Path("testcases/ext").rglob("*.mrt")):
    m = re.search(r"^# tp: (\S+)", f.read_text(), re.M)
    if m and m.group(1) not in skip:
        ids.append(m.group(1))
print(",".join(ids))
PY
)
# The Ext suite (profile metaroce-full) but for $needs_faster, with a dilated PIXIT: every
# selected test runs and passes (not applicable counts as not passed: the reference claims
# all of Part II), no claim is withdrawn; a test that fails runs once more and must pass then.
ext_suite_on_bed() {  # NAME PIXIT
  local out="$tmp/$1" pixit=$2
  run_on_bed "$out" --pixit "$pixit" --profile metaroce-full --filter "$ext_tests" >"$out.log" 2>&1
  echo "$1: $(tail -1 "$out.log") (not run here: $needs_faster)"
  local count selected failed still
  count=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["tests"]))' \
    "$out/report.json" 2>/dev/null || echo 0)
  selected=$(tr ',' '\n' <<<"$ext_tests" | grep -c .)
  if [[ $count -ne $selected || $selected -lt 95 ]]; then
    echo "FAIL: $1: $count tests ran of $selected selected"
    tail -20 "$out.log"
    exit 1
  fi
  if grep -q pics_not_claimed "$out/report.json"; then
    echo "FAIL: $1: the run withdrew Part II claims: the agent's capabilities lost them"
    exit 1
  fi
  failed=$(not_passed "$out/report.json" strict)
  if [[ -n "$failed" ]]; then
    echo "$1: not passed at the first run: $failed (once more)"
    grep -A3 -E "^(FAIL|INCONC|ERROR)" "$out.log" | head -20
    run_on_bed "$out-again" --pixit "$pixit" --profile metaroce-full --filter "$failed" \
      >"$out-again.log" 2>&1
    still=$(not_passed "$out-again/report.json" strict)
    if [[ -n "$still" || ! -f "$out-again/report.json" ]]; then
      echo "FAIL: $1: not passed twice: ${still:-no report}"
      grep -A3 -E "^(FAIL|INCONC|ERROR)" "$out-again.log" | head -40
      exit 1
    fi
  fi
}
ext_suite_on_bed ext-dilated testcases/pixit/veth-dilated.pixit.json
# 7. EXT-CR-002, EXT-PF-011 and EXT-PF-012 at 1000x: the same PIXIT with its bed-time
# tolerance divided by ten more and a quiet period of 2 ms (2 s of the host).
python3 - "$tmp/k1000.pixit.json" <<'PY'
import json, sys
p = json.load(open("testcases/pixit/veth-dilated.pixit.json"))
p["link"]["time_dilation"] = 1000
p["tolerance"]["absolute_ms"] = 0.01
p["timeouts"]["no_packet_ms"] = 2
json.dump(p, open(sys.argv[1], "w"), indent=2)
PY
start_agent --time-dilation 1000
k1000_ok=""
for attempt in 1 2; do
  run_on_bed "$tmp/k1000-$attempt" --pixit "$tmp/k1000.pixit.json" --profile metaroce-full \
    --filter EXT-CR-002,EXT-PF-011,EXT-PF-012 >"$tmp/k1000-$attempt.log" 2>&1
  echo "ext-dilated-1000x ($attempt): $(tail -1 "$tmp/k1000-$attempt.log")"
  if grep -q "^3 pass, 0 fail" <(tail -1 "$tmp/k1000-$attempt.log"); then k1000_ok=1; break; fi
  grep -A3 -E "^(FAIL|INCONC|ERROR)" "$tmp/k1000-$attempt.log" | head -20
done
[[ -n "$k1000_ok" ]] || { echo "FAIL: EXT-CR-002, EXT-PF-011, EXT-PF-012 did not pass at 1000x twice"; exit 1; }

# 8. The Ext suite again, at 200x, the RoCE frames through `metaroce fabric` in a third
# namespace: a leaf-spine (the tester on leaf 0, the DUT on leaf 1, four spines that ECMP
# spreads the EVs over, 256 KiB egress queues) on the real clock; control stays on the first
# cable. The fabric routes by its addressing plan, so the DUT's IPv6 address is its fd00::2.
ip link add mrbed4 netns "$a" mtu 9000 type veth peer name mrfab1 netns "$f" mtu 9000 &&
  ip link add mrbed5 netns "$b" mtu 9000 type veth peer name mrfab0 netns "$f" mtu 9000 ||
  { echo "FAIL: ip link add the fabric's veths"; exit 1; }
for l in "$a mrbed4" "$b mrbed5" "$f mrfab0" "$f mrfab1"; do
  read -r ns dev <<<"$l"
  ip -n "$ns" link set "$dev" up || { echo "FAIL: ip link set $dev up in $ns"; exit 1; }
done
ip netns exec "$f" "$metaroce" fabric --endpoint mrfab0 --endpoint mrfab1 --leaves 2 --spines 4 \
  --seed 5 >"$tmp/fabric.log" 2>&1 &
fabric_pid=$!
show_on_fail="$tmp/fabric.log"
for _ in $(seq 50); do  # bounded: 5 s for the fabric to open its ports
  grep -q "running until" "$tmp/fabric.log" && break
  kill -0 "$fabric_pid" 2>/dev/null || break
  sleep 0.1
done
grep -q "running until" "$tmp/fabric.log" && kill -0 "$fabric_pid" 2>/dev/null ||
  { echo "FAIL: the fabric did not start"; exit 1; }
data_a=mrbed4
data_b=mrbed5
agent_ipv6=fd00::2
# EXT-CC-007 (four CC streams' fair shares of a bottleneck, judged on goodput in windows of
# bed time) is out here too: through the fabric's two more libpcap hops its streams' goodput
# fell short of the 25 % band twice in a row in CI (18.2 Gbit/s of 25); it passes on one cable.
ext_tests=$(tr ',' '\n' <<<"$ext_tests" | grep -vx EXT-CC-007 | paste -sd, -)
needs_faster="$needs_faster EXT-CC-007"
start_agent --time-dilation 200
ext_suite_on_bed ext-dilated-fabric testcases/pixit/fabric-dilated.pixit.json
kill "$fabric_pid"
wait "$fabric_pid"
fabric_pid=""
grep -q "stopped: " "$tmp/fabric.log" || { echo "FAIL: the fabric did not stop cleanly"; cat "$tmp/fabric.log"; exit 1; }
grep -E "stopped|plane 0" "$tmp/fabric.log"
# The suite's frames went through the fabric (nothing else joins the two data interfaces),
# and ECMP spread the EVs over every spine.
python3 - "$tmp/fabric.log" <<'PY' || { echo "FAIL: the fabric carried too few frames, or left a spine unused"; cat "$tmp/fabric.log"; exit 1; }
import re, sys
log = open(sys.argv[1]).read()
m = re.search(r"stopped: (\d+) frames in, (\d+) out", log)
spines = [int(n) for n in re.findall(r"\d+: (\d+)", re.search(r"plane 0 spines:(.*)", log).group(1))]
sys.exit(0 if m and int(m.group(1)) >= 10000 and int(m.group(2)) >= 10000 and len(spines) == 4 and min(spines) > 0 else 1)
PY
echo "PASS: the base suite on one cable, on two, and on two with the agent on DPDK; a wrong PIXIT refused, a mutant failed; the Ext suite on a dilated bed, on one cable and through the fabric"
