#!/usr/bin/env bash
# ./metaroce bench analyze: the passive analyzer (`metaroce analyze`, the CLI as users run it,
# built -c opt) on captures of 1,000,000 and 5,000,000 frames of conformant RC traffic, beside
# tshark reading the same frames (`tshark -r FILE -T fields -e frame.number`) in the same run.
#
# Each capture is written once by synth_capture --mix rc --seed 1 and cached in
# ~/.cache/metaroce-bench; the 1,000,000-frame file is the first million frames of the
# 5,000,000-frame one (same seed, same generator). tshark runs on the 1,000,000-frame file
# (at ~20 k frames/s it would need over 4 minutes for 5,000,000); set
# METAROCE_BENCH_TSHARK_FULL=1 to time it on the large file too. Per size: wall and CPU
# (user + sys) time of the whole process, frames/s of each (range and median), peak RSS
# (getrusage ru_maxrss via /usr/bin/time), and whether issue #8's targets hold: a median of
# at least 5 Mpps on the 5,000,000-frame capture and at least 50x tshark on the same frames.
# The scale row: one run on a capture over 4 GiB (27,000,000 frames, ~4.5 GB; its size is
# checked), whose peak RSS must stay that of the small ones (memory flat in the capture's size).
# Results: a table on stdout and reports/bench/analyze.json.
set -uo pipefail
cd "$(dirname "$0")/../.."
runs=${METAROCE_BENCH_RUNS:-5}  # a median needs a few; each 5M run takes about a second
cache="${HOME:-/root}/.cache/metaroce-bench"
out=reports/bench/analyze.json
mkdir -p "$cache" reports/bench
log="$cache/build-analyze.log"
if ! bazel build -c opt --noshow_progress //harness/cli:metaroce //tools/bench:synth_capture >"$log" 2>&1; then
  tail -30 "$log" >&2
  exit 2
fi
bin=$(bazel info -c opt bazel-bin 2>/dev/null)
metaroce="$bin/harness/cli/metaroce"
large=27000000
for n in 1000000 5000000 $large; do
  f="$cache/rc-$n.pcapng"
  # Written beside and renamed: an interrupted run leaves no partial capture in the cache.
  if [[ ! -s "$f" ]]; then
    "$bin/tools/bench/synth_capture" --mix rc --count "$n" --seed 1 --out "$f.part" >&2 || exit 2
    mv "$f.part" "$f"
  fi
done
large_bytes=$(stat -c %s "$cache/rc-$large.pcapng")
if ((large_bytes <= 4294967296)); then
  echo "metaroce bench analyze: $cache/rc-$large.pcapng is $large_bytes bytes, not over 4 GiB" >&2
  exit 2
fi

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "anchor: $(tshark --version 2>/dev/null | head -1)"
rows="$cache/analyze-rows.txt"
: >"$rows"
# One timed run: "<label> <frames> <wall s> <user s> <sys s> <maxrss KB> <exit>"
timed() {
  local label=$1 frames=$2
  shift 2
  local t="$cache/time.txt"
  /usr/bin/time -f '%e %U %S %M %x' -o "$t" "$@" >/dev/null 2>&1
  echo "$label $frames $(cat "$t")" >>"$rows"
}
for n in 1000000 5000000; do
  # The first run also brings the file into the page cache; every run is reported.
  for ((i = 0; i < runs; i++)); do timed metaroce "$n" "$metaroce" analyze "$cache/rc-$n.pcapng"; done
done
# One run (~15 s), from the page cache as the smaller captures' later runs are.
cat "$cache/rc-$large.pcapng" >/dev/null
timed metaroce "$large" "$metaroce" analyze "$cache/rc-$large.pcapng"
timed tshark 1000000 tshark -r "$cache/rc-1000000.pcapng" -T fields -e frame.number
if [[ ${METAROCE_BENCH_TSHARK_FULL:-0} == 1 ]]; then
  timed tshark 5000000 tshark -r "$cache/rc-5000000.pcapng" -T fields -e frame.number
fi
/usr/bin/python3 - "$rows" "$out" "$metaroce" "$large" "$large_bytes" <<'PY'
import json, statistics, sys
TARGET_PPS, TARGET_RATIO = 5e6, 50
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
runs = [{"tool": r[0], "frames": int(r[1]), "wall_s": float(r[2]), "cpu_s": float(r[3]) + float(r[4]),
         "max_rss_kb": int(r[5]), "exit": int(r[6])} for r in rows]
for r in runs:
    r["pps_wall"] = r["frames"] / r["wall_s"] if r["wall_s"] else 0.0
    r["pps_cpu"] = r["frames"] / r["cpu_s"] if r["cpu_s"] else 0.0
def pick(tool, n):
    return [r for r in runs if r["tool"] == tool and r["frames"] == n]
summary = {}
LARGE, LARGE_BYTES = int(sys.argv[4]), int(sys.argv[5])
for tool in ("metaroce", "tshark"):
    for n in (1000000, 5000000, LARGE):
        rs = pick(tool, n)
        if not rs:
            continue
        summary[f"{tool}_{n}"] = {
            "runs": len(rs),
            "pps_wall": [min(r["pps_wall"] for r in rs), max(r["pps_wall"] for r in rs)],
            "pps_wall_median": statistics.median(r["pps_wall"] for r in rs),
            "pps_cpu": [min(r["pps_cpu"] for r in rs), max(r["pps_cpu"] for r in rs)],
            "max_rss_kb": [min(r["max_rss_kb"] for r in rs), max(r["max_rss_kb"] for r in rs)],
        }
t = summary["tshark_1000000"]
m1, m5 = summary["metaroce_1000000"], summary["metaroce_5000000"]
result = {
    "area": "analyze",
    "binary": sys.argv[3],
    "capture": "synth_capture --mix rc --seed 1 (conformant RC, 1024 connections)",
    "tshark_on": "1,000,000 frames (the first million of the 5,000,000-frame capture)"
                 if "tshark_5000000" not in summary else "both captures",
    "summary": summary,
    "ratio_vs_tshark_same_file_wall": [m1["pps_wall"][0] / t["pps_wall"][1], m1["pps_wall"][1] / t["pps_wall"][0]],
    "ratio_vs_tshark_same_file_cpu": [m1["pps_cpu"][0] / t["pps_cpu"][1], m1["pps_cpu"][1] / t["pps_cpu"][0]],
    "rss_growth_1m_to_5m": m5["max_rss_kb"][1] / m1["max_rss_kb"][0],
    "large_frames": LARGE,
    "large_capture_bytes": LARGE_BYTES,
    "rss_growth_1m_to_large": summary[f"metaroce_{LARGE}"]["max_rss_kb"][1] / m1["max_rss_kb"][0],
    # Issue #8's targets, judged on the 5,000,000-frame runs: the median, since one run on a
    # shared machine can be slowed by its neighbours either way.
    "target_pps": TARGET_PPS,
    "target_ratio_vs_tshark": TARGET_RATIO,
    "runs_at_target": sum(1 for r in pick("metaroce", 5000000) if r["pps_wall"] >= TARGET_PPS),
    "exit_codes": sorted({r["exit"] for r in runs if r["tool"] == "metaroce"}),
    "runs": runs,
}
json.dump(result, open(sys.argv[2], "w"), indent=1)
def mpps(v): return f"{v[0]/1e6:.2f}-{v[1]/1e6:.2f} Mpps"
for n, m in ((1000000, m1), (5000000, m5)):
    print(f"metaroce analyze {n:>9} frames: {mpps(m['pps_wall'])} wall (median "
          f"{m['pps_wall_median']/1e6:.2f}), {mpps(m['pps_cpu'])} CPU, "
          f"peak RSS {m['max_rss_kb'][0]/1024:.1f}-{m['max_rss_kb'][1]/1024:.1f} MiB ({m['runs']} runs)")
print(f"tshark           1000000 frames: {t['pps_wall'][0]/1e3:.1f} kpps wall, {t['pps_cpu'][0]/1e3:.1f} kpps CPU")
if "tshark_5000000" not in summary:
    print("  (tshark timed on the 1,000,000-frame prefix only; METAROCE_BENCH_TSHARK_FULL=1 for the 5M file)")
r = result["ratio_vs_tshark_same_file_wall"]
c = result["ratio_vs_tshark_same_file_cpu"]
print(f"ratio on the same 1,000,000 frames: {r[0]:.0f}-{r[1]:.0f}x (wall), {c[0]:.0f}-{c[1]:.0f}x (CPU)")
print(f"peak RSS 5M / 1M: {result['rss_growth_1m_to_5m']:.2f}")
ml = summary[f"metaroce_{LARGE}"]
print(f"metaroce analyze {LARGE:>9} frames ({LARGE_BYTES/2**30:.2f} GiB): "
      f"{ml['pps_wall_median']/1e6:.2f} Mpps wall, peak RSS {ml['max_rss_kb'][1]/1024:.1f} MiB "
      f"({result['rss_growth_1m_to_large']:.2f} of the 1M-frame run's)")
median5 = m5["pps_wall_median"]
print(f"target {TARGET_PPS/1e6:.0f} Mpps on 5,000,000 frames: median {median5/1e6:.2f} Mpps "
      f"({'met' if median5 >= TARGET_PPS else 'NOT met'}), {result['runs_at_target']} of "
      f"{m5['runs']} runs at or above; target {TARGET_RATIO}x tshark: "
      f"{'met' if r[0] >= TARGET_RATIO else 'NOT met'} ({r[0]:.0f}x at worst)")
print(f"analyze exit codes: {result['exit_codes']} (0: no violation found, as the traffic is conformant)")
PY
echo "results: $out"
