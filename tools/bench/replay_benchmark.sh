#!/usr/bin/env bash
# ./metaroce bench replay (root): a capture injected onto a veth pair as fast as possible by
# `metaroce replay FILE --inject IF --fast` (the -c opt CLI; its frames go out through
# PcapLink::send_burst, the path the harness injects toward a remote DUT) and by
# `tcpreplay --topspeed -i IF FILE`, the anchor, on the same pair with the same capture in
# the same run.
#
# Topology: two network namespaces of our own joined by a veth pair (198.18.0.1/24 and
# 198.18.0.2/24, kernel IPv6 off so that nothing else crosses), deleted at exit, also on
# error or Ctrl-C. Both tools run in namespace A on the A end. What counts is what arrives:
# rx_packets of the B end (/sys/class/net/IF/statistics inside B), read before and after
# each run, over the wall time of the tool's whole process; and, as the machine is shared,
# over its CPU time (user + sys, /usr/bin/time), which load disturbs less. Each tool's own
# account (frames sent, its own rate) is kept beside it. The tools alternate, METAROCE_BENCH_RUNS times
# (default 3).
#
# Capture: synth_capture --mix rc --seed 1 with METAROCE_BENCH_REPLAY_FRAMES frames
# (default 1,000,000; the same file `bench analyze` uses), cached in ~/.cache/metaroce-bench.
# Results: a table on stdout and reports/bench/replay.json.
set -uo pipefail
cd "$(dirname "$0")/../.."
runs=${METAROCE_BENCH_RUNS:-3}
frames=${METAROCE_BENCH_REPLAY_FRAMES:-1000000}
cache="${HOME:-/root}/.cache/metaroce-bench"
out=reports/bench/replay.json
mkdir -p "$cache" reports/bench
if [[ $(id -u) != 0 ]]; then
  echo "metaroce bench replay: needs root (network namespaces and a veth pair)" >&2
  exit 2
fi
if ! command -v tcpreplay >/dev/null; then
  echo "metaroce bench replay: tcpreplay is not installed (the anchor)" >&2
  exit 2
fi
log="$cache/build-replay.log"
if ! bazel build -c opt --noshow_progress //harness/cli:metaroce //tools/bench:synth_capture >"$log" 2>&1; then
  tail -30 "$log" >&2
  exit 2
fi
bin=$(bazel info -c opt bazel-bin 2>/dev/null)
metaroce="$bin/harness/cli/metaroce"
capture="$cache/rc-$frames.pcapng"
[[ -s "$capture" ]] || "$bin/tools/bench/synth_capture" --mix rc --count "$frames" --seed 1 --out "$capture" >&2 || exit 2

ns_a="mrt-bench-replay-$$-a"
ns_b="mrt-bench-replay-$$-b"
if_a=mrtr0
if_b=mrtr1
work=$(mktemp -d)
cleanup() {
  ip netns del "$ns_a" 2>/dev/null
  ip netns del "$ns_b" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
make_topology() {
  ip netns add "$ns_a" && ip netns add "$ns_b" || return 1
  local ns
  for ns in "$ns_a" "$ns_b"; do
    ip netns exec "$ns" sysctl -qw net.ipv6.conf.default.disable_ipv6=1 net.ipv6.conf.all.disable_ipv6=1 || return 1
  done
  ip -n "$ns_a" link add "$if_a" type veth peer name "$if_b" netns "$ns_b" &&
    ip -n "$ns_a" addr add 198.18.0.1/24 dev "$if_a" &&
    ip -n "$ns_b" addr add 198.18.0.2/24 dev "$if_b" &&
    ip -n "$ns_a" link set "$if_a" up &&
    ip -n "$ns_b" link set "$if_b" up
}
if ! make_topology; then
  echo "metaroce bench replay: cannot create the namespaces and veth pair" >&2
  exit 2
fi
rx_packets() { ip netns exec "$ns_b" cat "/sys/class/net/$if_b/statistics/rx_packets"; }

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "anchor: $(tcpreplay --version 2>&1 | head -1)"
echo "capture: $capture ($frames frames)"
rows="$work/rows.txt"
: >"$rows"
# One run: "<tool> <received on B> <wall s> <user s> <sys s> <exit> <tool's own output file>"
timed() {
  local tool=$1
  shift
  local before after t0 t1 rc
  local own="$work/$tool-$(wc -l <"$rows").txt"
  before=$(rx_packets)
  t0=$(date +%s.%N)
  /usr/bin/time -f '%U %S' -o "$work/cpu.txt" timeout 600 ip netns exec "$ns_a" "$@" >"$own" 2>&1
  rc=$?
  t1=$(date +%s.%N)
  after=$(rx_packets)
  echo "$tool $((after - before)) $(echo "$t1 - $t0" | bc) $(tail -1 "$work/cpu.txt") $rc $own" >>"$rows"
}
for ((i = 0; i < runs; i++)); do
  timed tcpreplay tcpreplay --topspeed -i "$if_a" "$capture"
  timed metaroce "$metaroce" replay "$capture" --inject "$if_a" --fast
done
/usr/bin/python3 - "$rows" "$out" "$frames" "$metaroce" <<'PY'
import json, re, sys
rows_path, out_path, frames, binary = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
runs = []
for line in open(rows_path):
    tool, received, wall, user, system, rc, own = line.split()
    text = open(own).read()
    run = {"tool": tool, "received": int(received), "wall_s": float(wall),
           "cpu_s": float(user) + float(system), "exit": int(rc)}
    run["pps"] = run["received"] / run["wall_s"]
    run["pps_cpu"] = run["received"] / run["cpu_s"] if run["cpu_s"] else 0.0
    if tool == "tcpreplay":
        m = re.search(r"Actual: (\d+) packets .* sent in ([\d.]+) seconds", text)
        r = re.search(r"Rated: .*?, ([\d.]+) pps", text)
        if m:
            run["sent"], run["own_s"] = int(m.group(1)), float(m.group(2))
        if r:
            run["own_pps"] = float(r.group(1))
    else:
        m = re.search(r"injected (\d+) of \d+ frames onto \S+ in ([\d.]+) s \(([\d.]+) frames/s\)", text)
        if m:
            run["sent"], run["own_s"], run["own_pps"] = int(m.group(1)), float(m.group(2)), float(m.group(3))
    if run["exit"] != 0 or "sent" not in run:
        run["output"] = text[-2000:]
    runs.append(run)
def rng(tool, key):
    v = [r[key] for r in runs if r["tool"] == tool and key in r]
    return [min(v), max(v)] if v else None
ok = all(r["exit"] == 0 and r["received"] == frames for r in runs)
ours, anchor = rng("metaroce", "pps"), rng("tcpreplay", "pps")
ratio = [ours[0] / anchor[1], ours[1] / anchor[0]]
anchor_runs = [r for r in runs if r["tool"] == "tcpreplay"]
our_runs = [r for r in runs if r["tool"] == "metaroce"]
pairs = [m["pps"] / t["pps"] for t, m in zip(anchor_runs, our_runs)]
pairs_cpu = [m["pps_cpu"] / t["pps_cpu"] for t, m in zip(anchor_runs, our_runs)]
result = {
    "area": "replay",
    "binary": binary,
    "capture": f"synth_capture --mix rc --seed 1, {frames} frames",
    "topology": "veth pair between two network namespaces, 198.18.0.1/24 - 198.18.0.2/24",
    "counted": "rx_packets of the peer end over the wall time of the tool's process",
    "every_frame_arrived": ok,
    "metaroce_pps": ours, "tcpreplay_pps": anchor,
    "ratio_range": ratio, "ratio_per_run": pairs,
    "metaroce_pps_cpu": rng("metaroce", "pps_cpu"), "tcpreplay_pps_cpu": rng("tcpreplay", "pps_cpu"),
    "ratio_cpu_per_run": pairs_cpu,
    "metaroce_own_pps": rng("metaroce", "own_pps"), "tcpreplay_own_pps": rng("tcpreplay", "own_pps"),
    "target": "at least tcpreplay --topspeed's rate", "target_met": min(pairs) >= 1.0,
    "runs": runs,
}
json.dump(result, open(out_path, "w"), indent=1)
print(f"{'run':>3} {'tool':<10} {'received':>9} {'wall s':>7} {'received/wall':>14} {'CPU s':>6} "
      f"{'received/CPU':>13} {'own pps':>10}")
for i, r in enumerate(runs):
    print(f"{i // 2 + 1:>3} {r['tool']:<10} {r['received']:>9} {r['wall_s']:7.3f} {r['pps']:14.0f} "
          f"{r['cpu_s']:6.2f} {r['pps_cpu']:13.0f} {r.get('own_pps', 0):10.0f}"
          + ("" if r["exit"] == 0 else f"  exit {r['exit']}"))
print(f"metaroce replay --inject --fast: {ours[0]/1e3:.0f}-{ours[1]/1e3:.0f} kpps | "
      f"tcpreplay --topspeed: {anchor[0]/1e3:.0f}-{anchor[1]/1e3:.0f} kpps | "
      f"ratio per run {min(pairs):.2f}-{max(pairs):.2f} ({len(pairs)} runs)")
oc, ac = rng("metaroce", "pps_cpu"), rng("tcpreplay", "pps_cpu")
print(f"per CPU second: metaroce {oc[0]/1e3:.0f}-{oc[1]/1e3:.0f} kpps | tcpreplay {ac[0]/1e3:.0f}-{ac[1]/1e3:.0f} kpps | "
      f"ratio per run {min(pairs_cpu):.2f}-{max(pairs_cpu):.2f}")
print(f"every frame arrived on the peer in every run: {'yes' if ok else 'NO'}; "
      f"target (at least tcpreplay's rate in every run): {'met' if result['target_met'] else 'NOT met'}")
for r in runs:
    if "output" in r:
        print(f"{r['tool']} output:\n{r['output']}", file=sys.stderr)
sys.exit(0 if ok else 1)
PY
status=$?
echo "results: $out"
exit $status
