#!/usr/bin/env bash
# ./metaroce bench [AREA]: the benchmarks, each beside the anchor it is compared to, run in
# the same session on the same files, and reported as ratios.
#
#   codec      decode + ICRC verify (packets/s/core) on 1,000,000-frame captures against
#              tshark and Scapy decoding the same files; the same on each capture's Ext twin
#              (synth_capture --ext: TVer 1, table 19.1's headers), against the base rate, in
#              alternating rounds (best of METAROCE_BENCH_ROUNDS, default 3, for each);
#              ICRC throughput against memcpy.
#   transport  64 KiB RDMA WRITE goodput at MTU 4096 against memcpy; 8-byte SEND rate; the
#              per-message cost and heap per QP at 1, 1,000, 10,000 and 100,000 QPs, base
#              and Ext.
#   io         PcapLink on a veth pair against a bare AF_PACKET socket (root; namespaces).
#   dpdk       DpdkLink (net_af_packet vdevs, --no-huge) against dpdk-testpmd on the same veth
#              pair and devices in the same run (txonly, rxonly, io forwarding), with libpcap
#              and a bare AF_PACKET socket beside them; 64-byte frames (root; two CPUs).
#   analyze    `metaroce analyze` (the CLI, -c opt) on 1,000,000- and 5,000,000-frame captures
#              of conformant RC traffic on 1024 connections (synth_capture --mix rc): frames
#              per second of wall and of CPU time, peak RSS at each size; tshark reading the
#              1,000,000-frame capture (the first million frames of the other) as the anchor.
#   suite      the whole suite on the embedded reference (one core, then --jobs 2) against an
#              empty-script test run as many times: the per-test fixed overhead.
#   replay     `metaroce replay FILE --inject IF --fast` onto a veth pair between two
#              namespaces against `tcpreplay --topspeed` with the same 1,000,000-frame rc
#              capture on the same pair (root): frames/s arriving at the peer.
#   fabric     issue 22's scenarios on the simulated multi-plane fabric in virtual time (a
#              plane black-holed mid-transfer, incast 16 and 128 to 1, a 128-host
#              permutation sprayed, on one path and with degraded spine links, random loss
#              0.1 to 5%): Part II against base RoCEv2 (go-back-N, DCQCN, no PFC) on the same
#              fabric and seed, completion against the ideal, retransmissions, drops; the
#              simulator's own cost in wall seconds and events per second.
#   all        every area above, --runs N times (default 3), then one table of every figure
#              beside its anchor (medians of the runs, with their minimum and maximum, as
#              ratios) written into docs/performance.md with the machine's description
#              (tools/bench/bench_table.py; each run's files under reports/bench/runs/K/). An
#              area that fails is named at the end with its log, and the table says it was
#              not run. io and replay need root (network namespaces).
#
# Results: a table on stdout and reports/bench/<area>.json.
set -uo pipefail
cd "$(dirname "$0")/../.."
self="$PWD/tools/bench/run_benchmarks.sh"
area=${1:-codec}
frames=${METAROCE_BENCH_FRAMES:-1000000}
scapy_frames=${METAROCE_BENCH_SCAPY_FRAMES:-20000}
rounds=${METAROCE_BENCH_ROUNDS:-3}
cache="${HOME:-/root}/.cache/metaroce-bench"
out_dir=reports/bench
mkdir -p "$cache" "$out_dir"

case "$area" in
  codec) ;;
  all)
    shift
    runs=3
    while (($# > 0)); do
      case $1 in
        --runs)
          runs=${2:-}
          shift $(($# >= 2 ? 2 : 1))
          ;;
        *)
          echo "metaroce bench all: unknown option '$1' (known: --runs N)" >&2
          exit 2
          ;;
      esac
    done
    if ! [[ $runs =~ ^[1-9][0-9]*$ ]]; then
      echo "metaroce bench all: --runs: expected a positive count, got '$runs'" >&2
      exit 2
    fi
    runs_dir="$out_dir/runs"
    rm -rf "$runs_dir"
    failed=()
    for ((k = 1; k <= runs; k++)); do
      mkdir -p "$runs_dir/$k"
      for a in codec transport io dpdk analyze suite replay fabric; do
        echo "bench all: run $k of $runs: $a" >&2
        rm -f "$out_dir/$a.json"
        if "$self" "$a" >"$cache/all-$a.log" 2>&1 && [[ -s "$out_dir/$a.json" ]]; then
          cp "$out_dir/$a.json" "$runs_dir/$k/"
        else
          failed+=("$a in run $k (its output: $cache/all-$a.log)")
        fi
      done
    done
    /usr/bin/python3 tools/bench/bench_table.py "$runs_dir" --doc docs/performance.md || exit 2
    if ((${#failed[@]} > 0)); then
      printf 'metaroce bench all: failed: %s\n' "${failed[@]}" >&2
      exit 1
    fi
    exit 0
    ;;
  dpdk)
    if ! bazel build --noshow_progress -c opt //reference/io/dpdk:dpdk_link_benchmark >"$cache/build.log" 2>&1; then
      tail -30 "$cache/build.log" >&2
      exit 2
    fi
    "$(bazel info -c opt bazel-bin 2>/dev/null)/reference/io/dpdk/dpdk_link_benchmark" \
      --seconds "${METAROCE_BENCH_DPDK_SECONDS:-2}" --repetitions 3 --json "$out_dir/dpdk.json" || exit $?
    [[ -s "$out_dir/dpdk.json" ]] || { echo "metaroce bench dpdk: not run (see above)" >&2; exit 2; }
    echo "results: $out_dir/dpdk.json"
    exit 0
    ;;
  analyze) exec tools/bench/analyze_benchmark.sh ;;
  suite) exec tools/bench/suite_benchmark.sh ;;
  replay) exec tools/bench/replay_benchmark.sh ;;
  fabric)
    if ! bazel build --noshow_progress --config=bench //reference/testbed:fabric_bench >"$cache/build.log" 2>&1; then
      tail -30 "$cache/build.log" >&2
      exit 2
    fi
    "$(bazel info --config=bench bazel-bin 2>/dev/null)/reference/testbed/fabric_bench" "$out_dir/fabric.json" || exit $?
    echo "results: $out_dir/fabric.json"
    exit 0
    ;;
  transport | io)
    target=$([[ $area == transport ]] && echo //reference/transport:transport_benchmark || echo //reference/io:link_benchmark)
    if ! bazel build --noshow_progress --config=bench "$target" >"$cache/build.log" 2>&1; then
      tail -30 "$cache/build.log" >&2
      exit 2
    fi
    bin=$(bazel info --config=bench bazel-bin 2>/dev/null)
    exe="$bin/${target#//}"
    exe="${exe/://}"
    # JSON to a file of its own: a benchmark with a display reporter of its own (the link
    # benchmark's ratio line) writes its table to stdout whatever --benchmark_format says.
    "$exe" --benchmark_out="$out_dir/$area.json" --benchmark_out_format=json --benchmark_color=false \
      >"$cache/$area.console" 2>&1 || { tail -20 "$cache/$area.console" >&2; exit 2; }
    sed "s/\x1b\[[0-9;]*m//g" "$cache/$area.console" | grep -h "ratio" || true
    /usr/bin/python3 - "$out_dir/$area.json" "$area" <<'PY'
import json, sys
b = {x["name"]: x for x in json.load(open(sys.argv[1]))["benchmarks"]}
if sys.argv[2] == "transport":
    w, m = b["BM_WriteGoodput"]["bytes_per_second"], b["BM_Memcpy64K"]["bytes_per_second"]
    print(f"WRITE 64 KiB, MTU 4096: {w/1e9:.2f} GB/s | memcpy 64 KiB {m/1e9:.2f} GB/s | ratio {w/m:.3f}")
    c4, i4 = b["BM_Memcpy4K"]["bytes_per_second"], b["BM_Icrc4K"]["bytes_per_second"]
    bound = 1 / (2 / c4 + 2 / i4)
    print(f"  its work bound (2 copies at {c4/1e9:.1f} GB/s + 2 ICRCs at {i4/1e9:.1f} GB/s per byte): "
          f"{bound/1e9:.2f} GB/s | ratio {w/bound:.2f}")
    print(f"8-byte SEND: {b['BM_SendMessageRate']['items_per_second']/1e3:.0f} k messages/s")
    for family, label in (("BM_QpScaling", "base"), ("BM_ExtQpScaling", "Ext")):
        one = b[f"{family}/1"]["items_per_second"]
        for n in ("1", "1000", "10000", "100000"):
            x = b[f"{family}/{n}"]
            print(f"{label:>4} {n:>6} QPs: {x['items_per_second']/1e3:7.0f} k messages/s "
                  f"({x['items_per_second']/one:.2f} of 1 QP), heap per QP {x['heap_bytes_per_qp']:.0f} B idle, "
                  f"{x.get('heap_bytes_per_used_qp', 0):.0f} B once used")
else:
    standard = {"name", "family_index", "per_family_instance_index", "run_name", "run_type",
                "repetitions", "repetition_index", "threads", "iterations", "real_time",
                "cpu_time", "time_unit"}
    for name, x in b.items():
        counters = {k: v for k, v in x.items() if k not in standard and isinstance(v, (int, float))}
        print(name, ", ".join(f"{k} {v:.0f}" for k, v in counters.items()))
PY
    echo "results: $out_dir/$area.json"
    exit 0
    ;;
  *) echo "metaroce bench: unknown area '$area' (known: codec, transport, io, dpdk, analyze, suite, replay, fabric, all)" >&2; exit 2 ;;
esac

build_log="$cache/build.log"
if ! bazel build --noshow_progress --config=bench //tools/bench:synth_capture //reference/wire:codec_benchmark >"$build_log" 2>&1; then
  tail -30 "$build_log" >&2
  exit 2
fi
bin=$(bazel info --config=bench bazel-bin 2>/dev/null)

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "anchors: $(tshark --version 2>/dev/null | head -1); scapy $(/usr/bin/python3 -c 'import scapy; print(scapy.VERSION)')"
results="$out_dir/codec.json"
echo '{"area": "codec", "frames": '"$frames"', "mixes": [' >"$results"
first=1
for mix in small mtu1024; do
  file="$cache/$mix-$frames.pcapng"
  ext_file="$cache/$mix-ext-$frames.pcapng"
  [[ -s "$file" ]] || "$bin/tools/bench/synth_capture" --mix "$mix" --count "$frames" --seed 1 --out "$file" >&2 || exit 2
  [[ -s "$ext_file" ]] || "$bin/tools/bench/synth_capture" --mix "$mix" --ext --count "$frames" --seed 1 --out "$ext_file" >&2 || exit 2
  # Base and Ext in alternating rounds, so that both meet the same load on a shared machine;
  # the best round of each counts.
  ours=0
  ext=0
  for ((round = 0; round < rounds; round++)); do
    for which in base ext; do
      capture=$([[ $which == base ]] && echo "$file" || echo "$ext_file")
      json=$(METAROCE_BENCH_CAPTURE="$capture" "$bin/reference/wire/codec_benchmark" \
        --benchmark_filter='BM_DecodeAndVerify' --benchmark_format=json 2>/dev/null)
      pps=$(/usr/bin/python3 -c 'import json,sys; b=json.load(sys.stdin)["benchmarks"][0]; print(b.get("items_per_second", 0))' <<<"$json" 2>/dev/null || echo 0)
      if [[ $which == base ]]; then
        ours=$(/usr/bin/python3 -c "print(max($ours, $pps))")
      else
        ext=$(/usr/bin/python3 -c "print(max($ext, $pps))")
      fi
    done
  done
  if [[ $ours == 0 || $ext == 0 ]]; then
    echo "codec_benchmark gave no rate for $mix (a frame that does not decode with a valid ICRC?)" >&2
    exit 2
  fi
  # tshark: dissect every frame down to the InfiniBand BTH and ICRC fields.
  t0=$(date +%s.%N)
  tshark -r "$file" -T fields -e infiniband.bth.psn -e infiniband.invariant.crc >/dev/null 2>&1
  t1=$(date +%s.%N)
  tshark_pps=$(/usr/bin/python3 -c "print($frames / ($t1 - $t0))")
  # Scapy: dissect a slice (Ether / IP / UDP / BTH / ...), scaled to packets per second.
  scapy_pps=$(/usr/bin/python3 tools/bench/scapy_decode_rate.py "$file" "$scapy_frames")
  /usr/bin/python3 - "$mix" "$ours" "$tshark_pps" "$scapy_pps" "$ext" "$first" >>"$results" <<'PY'
import json, sys
mix, ours, tshark, scapy, ext, first = sys.argv[1], *map(float, sys.argv[2:6]), sys.argv[6] == "1"
row = {"mix": mix, "metaroce_pps": ours, "tshark_pps": tshark, "scapy_pps": scapy,
       "ratio_vs_tshark": ours / tshark, "ratio_vs_scapy": ours / scapy,
       "metaroce_ext_pps": ext, "ratio_ext_vs_base": ext / ours}
print(("" if first else ",") + json.dumps(row))
print(f"decode+icrc [{mix:8}] metaroce {ours/1e6:7.2f} Mpps | tshark {tshark/1e3:8.1f} kpps "
      f"({ours/tshark:6.0f}x) | scapy {scapy/1e3:6.2f} kpps ({ours/scapy:7.0f}x)", file=sys.stderr)
print(f"decode+icrc [{mix:8}] base {ours/1e6:7.2f} Mpps | Ext twin {ext/1e6:7.2f} Mpps | "
      f"Ext/base {ext/ours:5.3f}", file=sys.stderr)
PY
  first=0
done
echo '],' >>"$results"
raw="$cache/icrc-memcpy.json"
"$bin/reference/wire/codec_benchmark" --benchmark_filter='BM_(Icrc|IsalCrc32|Memcpy)' --benchmark_format=json >"$raw" 2>/dev/null
/usr/bin/python3 - "$raw" >>"$results" <<'PY'
import json, sys
b = {x["name"]: x["bytes_per_second"] for x in json.load(open(sys.argv[1]))["benchmarks"]}
rows = []
for size in ("64", "1024", "4096", str(64 << 20)):
    icrc, mem, isal = b[f"BM_Icrc/{size}"], b[f"BM_Memcpy/{size}"], b[f"BM_IsalCrc32/{size}"]
    rows.append({"bytes": int(size), "icrc_gbps": icrc / 1e9, "memcpy_gbps": mem / 1e9, "ratio": icrc / mem,
                 "isal_gbps": isal / 1e9, "ratio_vs_isal": icrc / isal})
    print(f"icrc {int(size):>9} B: {icrc/1e9:6.2f} GB/s | memcpy {mem/1e9:6.2f} GB/s | ratio {icrc/mem:5.2f}"
          f" | ISA-L crc32_gzip_refl {isal/1e9:6.2f} GB/s | ratio {icrc/isal:5.2f}", file=sys.stderr)
packets = []
for size in ("64", "256", "1024", "4096"):
    whole = b[f"BM_IcrcPacket/{size}"]
    packets.append({"bytes": int(size), "gbps": whole / 1e9, "ns": int(size) / whole * 1e9})
    print(f"icrc of a {int(size):>4} B IPv4 packet (masked headers + rest): {int(size) / whole * 1e9:6.1f} ns,"
          f" {whole/1e9:6.2f} GB/s", file=sys.stderr)
tables = b["BM_IcrcTables/4096"]
print(f"icrc slice-by-8 tables, 4096 B: {tables/1e9:6.2f} GB/s (the fallback without PCLMULQDQ)", file=sys.stderr)
# The rest of codec.json's object (its opening brace dropped: the file's object is already open).
print(json.dumps({"icrc": rows, "icrc_packet": packets, "icrc_tables_4096_gbps": tables / 1e9})[1:])
PY
echo "results: $results"
