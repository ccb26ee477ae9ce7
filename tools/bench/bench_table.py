#!/usr/bin/python3
"""One table of every benchmark, each figure beside the anchor measured in the same run.

  /usr/bin/python3 tools/bench/bench_table.py RUNS_DIR [--doc docs/performance.md]

RUNS_DIR holds one folder per run (1/, 2/, ...), each with the JSON files `./metaroce bench
AREA` wrote to reports/bench/ (codec.json, transport.json, io.json, analyze.json,
suite.json, replay.json, fabric.json). Every measure is read from every run that has its
area; the table gives the median of the runs with their minimum and maximum, for our
figure, the anchor's and their ratio (the ratio of each run, not the ratio of the medians).
An area no run has is listed as not run, never left out silently. With --doc the table
replaces the part of that file between the markers below (appended when they are absent);
without it the table goes to stdout.

`./metaroce bench all [--runs N]` runs every area N times and then this.
"""
import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
from dataclasses import dataclass

BEGIN = "<!-- bench-table:begin (tools/bench/bench_table.py writes this part) -->"
END = "<!-- bench-table:end -->"
AREAS = ("codec", "transport", "io", "dpdk", "analyze", "suite", "replay", "fabric")


@dataclass
class Measure:
    """One figure of one run: ours, the anchor's (None: a figure without anchor)."""
    area: str
    name: str
    unit: str
    ours: float
    anchor_name: str = ""
    anchor: float | None = None
    # True: ours / anchor is how many times better (rates). False: anchor / ours (times).
    higher_is_better: bool = True

    def ratio(self):
        if self.anchor is None or self.anchor == 0 or self.ours == 0:
            return None
        return self.ours / self.anchor if self.higher_is_better else self.anchor / self.ours


class BadInput(Exception):
    """A result file that cannot be read: names the file and what is missing."""


def _need(d, key, where):
    if not isinstance(d, dict) or key not in d:
        raise BadInput(f"{where}: no field '{key}'")
    return d[key]


def codec(j, where):
    out = []
    for row in _need(j, "mixes", where):
        mix = _need(row, "mix", where)
        ours = _need(row, "metaroce_pps", where)
        out.append(Measure("codec", f"decode + ICRC, {mix} mix", "pps", ours, "tshark",
                           _need(row, "tshark_pps", where)))
        out.append(Measure("codec", f"decode + ICRC, {mix} mix", "pps", ours, "Scapy",
                           _need(row, "scapy_pps", where)))
        if "metaroce_ext_pps" in row:
            out.append(Measure("codec", f"decode + ICRC, {mix} mix, Ext twin", "pps",
                               row["metaroce_ext_pps"], "the base capture", ours))
    for row in _need(j, "icrc", where):
        size = _need(row, "bytes", where)
        label = f"{size} B" if size < 1 << 20 else f"{size >> 20} MiB"
        out.append(Measure("codec", f"ICRC, {label}", "B/s", row["icrc_gbps"] * 1e9, "memcpy",
                           row["memcpy_gbps"] * 1e9))
        out.append(Measure("codec", f"ICRC, {label}", "B/s", row["icrc_gbps"] * 1e9,
                           "ISA-L crc32_gzip_refl", row["isal_gbps"] * 1e9))
    return out


def _gbench(j, where):
    """Google Benchmark's rows by name without its option suffixes (BM_X/min_time:2.000/
    real_time is BM_X; BM_X/1000 keeps its argument); with repetitions, the median."""
    def plain(name):
        return "/".join(p for p in name.split("/")
                        if p not in ("real_time", "process_time", "manual_time")
                        and not p.split(":")[0] in ("min_time", "iterations", "repeats", "threads"))
    rows = {}
    for b in _need(j, "benchmarks", where):
        name = _need(b, "name", where)
        if b.get("run_type") == "aggregate":
            if b.get("aggregate_name") == "median":
                rows[plain(_need(b, "run_name", where))] = b
        else:
            rows.setdefault(plain(name), b)
    return rows


def transport(j, where):
    b = _gbench(j, where)
    def get(name, key):
        return _need(_need(b, name, where), key, f"{where}: {name}")
    out = [Measure("transport", "RDMA WRITE 64 KiB, MTU 4096, goodput", "B/s",
                   get("BM_WriteGoodput", "bytes_per_second"), "memcpy 64 KiB",
                   get("BM_Memcpy64K", "bytes_per_second"))]
    if "BM_Memcpy4K" in b and "BM_Icrc4K" in b:
        # What the work allows: two copies and two ICRCs of each byte, at one packet's size.
        bound = 1 / (2 / get("BM_Memcpy4K", "bytes_per_second") +
                     2 / get("BM_Icrc4K", "bytes_per_second"))
        out.append(Measure("transport", "RDMA WRITE 64 KiB, MTU 4096, goodput", "B/s",
                           get("BM_WriteGoodput", "bytes_per_second"),
                           "its work bound: 2 copies + 2 ICRCs per byte at 4 KiB", bound))
    if "BM_ExtWriteGoodput" in b:
        out.append(Measure("transport", "the same, Ext QP", "B/s",
                           get("BM_ExtWriteGoodput", "bytes_per_second"), "base QP",
                           get("BM_WriteGoodput", "bytes_per_second")))
    for family, label in (("BM_QpScaling", "base"), ("BM_ExtQpScaling", "Ext")):
        if f"{family}/1" not in b:
            continue
        one = get(f"{family}/1", "items_per_second")
        for n in ("1000", "10000", "100000"):
            if f"{family}/{n}" not in b:
                continue
            out.append(Measure("transport", f"8-byte SENDs over {int(n):,} {label} QPs", "msg/s",
                               get(f"{family}/{n}", "items_per_second"), f"1 {label} QP", one))
        last = max((n for n in ("1000", "10000", "100000") if f"{family}/{n}" in b), key=int,
                   default=None)
        if last:
            out.append(Measure("transport", f"heap per connected idle {label} QP", "B",
                               get(f"{family}/{last}", "heap_bytes_per_qp"), "1 KB", 1000,
                               higher_is_better=False))
    return out


def io(j, where):
    b = _gbench(j, where)
    def rate(name):
        return _need(_need(b, name, where), "frames_per_s", f"{where}: {name}")
    return [Measure("io", "PcapLink on a veth pair, frames sent + received", "fps",
                    rate("BM_PcapLink"), "raw AF_PACKET socket", rate("BM_RawAfPacket"))]


def analyze(j, where):
    s = _need(j, "summary", where)
    ours = _need(_need(s, "metaroce_1000000", where), "pps_wall_median", where)
    anchor = _need(s, "tshark_1000000", where)
    tshark = statistics.median(_need(anchor, "pps_wall", where))
    out = [Measure("analyze", "analyze, 1,000,000 frames (wall)", "pps", ours, "tshark", tshark)]
    if "metaroce_5000000" in s:
        out.append(Measure("analyze", "analyze, 5,000,000 frames (wall)", "pps",
                           s["metaroce_5000000"]["pps_wall_median"], "tshark, 1,000,000 frames",
                           tshark))
        out.append(Measure("analyze", "peak RSS, 5M frames", "x",
                           _need(j, "rss_growth_1m_to_5m", where), "1M frames (flat: 1)", 1.0,
                           higher_is_better=False))
    if "large_frames" in j:
        large = _need(s, f"metaroce_{j['large_frames']}", where)
        gib = _need(j, "large_capture_bytes", where) / 2**30
        out.append(Measure("analyze", f"analyze, a {gib:.1f} GiB capture (wall)", "pps",
                           _need(large, "pps_wall_median", where), "tshark, 1,000,000 frames",
                           tshark))
        out.append(Measure("analyze", f"peak RSS, the {gib:.1f} GiB capture", "x",
                           _need(j, "rss_growth_1m_to_large", where), "1M frames (flat: 1)", 1.0,
                           higher_is_better=False))
    return out


def dpdk(j, where):
    rows = {}
    for row in _need(j, "rows", where):
        rows[(_need(row, "mode", where), _need(row, "contender", where))] = \
            _need(row, "pps_median", where)
    out = []
    for mode in ("txonly", "rxonly", "io"):
        if (mode, "DpdkLink") in rows and (mode, "testpmd") in rows:
            out.append(Measure("dpdk", f"DpdkLink {mode}, 64-byte frames", "pps",
                               rows[(mode, "DpdkLink")], f"dpdk-testpmd {mode}",
                               rows[(mode, "testpmd")]))
        if (mode, "libpcap") in rows and (mode, "raw AF_PACKET") in rows:
            out.append(Measure("dpdk", f"libpcap {mode}, 64-byte frames", "pps",
                               rows[(mode, "libpcap")], f"raw AF_PACKET {mode}",
                               rows[(mode, "raw AF_PACKET")]))
    if not out:
        raise BadInput(f"{where}: no DpdkLink and testpmd rows of one mode")
    return out


def suite(j, where):
    n = _need(j, "tests", where)
    one = _need(j, "suite_1core_s", where)
    out = [Measure("suite", f"the whole suite, {n} test purposes, one core", "s", one,
                   f"an empty test x{n}", _need(j, "empty_1core_s", where),
                   higher_is_better=False)]
    # Scale: k times the test runs against k times the 1x time (1 or more: linear or better).
    for row in j.get("scale", []):
        k = _need(row, "factor", where)
        out.append(Measure("suite", f"the whole suite x{k} ({k * n:,} test runs), one core", "s",
                           _need(row, "wall_s", where), f"{k} x the 1x time", k * one,
                           higher_is_better=False))
    return out


def replay(j, where):
    ours = statistics.median(_need(j, "metaroce_pps", where))
    anchor = statistics.median(_need(j, "tcpreplay_pps", where))
    return [Measure("replay", "replay --inject --fast onto a veth pair", "pps", ours,
                    "tcpreplay --topspeed", anchor)]


def fabric(j, where):
    if not isinstance(j, list):
        raise BadInput(f"{where}: not a list of rows")
    out = []
    by = {}
    for row in j:
        by.setdefault(_need(row, "scenario", where), []).append(row)
    for scenario, rows in by.items():
        base = next((r for r in rows if r.get("variant") == "base RoCEv2, 1 ms"), None)
        for r in rows:
            variant = _need(r, "variant", where)
            if variant.startswith("base") or _need(r, "completed", where) != _need(r, "flows", where):
                continue
            last = _need(r, "last_finish_ns", where)
            bound = r.get("capacity_bound_ns") or _need(r, "ideal_ns", where)
            out.append(Measure("fabric", f"{scenario}, {variant}, last completion", "ns", last,
                               "what the fabric allows", bound, higher_is_better=False))
            if base and base["completed"] == base["flows"]:
                out.append(Measure("fabric", f"{scenario}, {variant}, last completion", "ns",
                                   last, "base RoCEv2, 1 ms timeout",
                                   base["last_finish_ns"], higher_is_better=False))
    return out


READERS = {"codec": codec, "transport": transport, "io": io, "dpdk": dpdk, "analyze": analyze,
           "suite": suite, "replay": replay, "fabric": fabric}


def read_runs(runs_dir):
    """{area: [[Measure] of each run that has it]}, and the runs' names."""
    runs = sorted((d for d in os.listdir(runs_dir) if os.path.isdir(os.path.join(runs_dir, d))),
                  key=lambda d: (len(d), d))
    by_area = {a: [] for a in AREAS}
    for run in runs:
        for area in AREAS:
            path = os.path.join(runs_dir, run, f"{area}.json")
            if not os.path.exists(path):
                continue
            try:
                with open(path) as f:
                    j = json.load(f)
            except (OSError, json.JSONDecodeError) as e:
                raise BadInput(f"{path}: {e}") from e
            by_area[area].append(READERS[area](j, path))
    return by_area, runs


def _si(v, unit):
    if unit == "ns":
        return f"{v / 1e3:,.1f} us" if v < 1e6 else f"{v / 1e6:,.2f} ms"
    if unit == "s":
        return f"{v:.2f} s"
    if unit == "x":
        return f"{v:.2f}"
    for scale, prefix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if v >= scale:
            return f"{v / scale:.2f} {prefix}{unit}"
    return f"{v:.0f} {unit}"


def _spread(values, fmt):
    if len(values) == 1 or fmt(min(values)) == fmt(max(values)):
        return fmt(values[0])
    return f"{fmt(statistics.median(values))} ({fmt(min(values))}-{fmt(max(values))})"


def render(by_area, runs, machine):
    lines = [f"Machine: {machine}. Runs: {len(runs)}; each cell is the median of the runs, "
             "with the minimum and maximum in brackets when there are several. Ratio: how "
             "many times better than the anchor (ours / anchor for rates, anchor / ours for "
             "times and sizes), per run.", "",
             "| area | measure | ours | anchor | anchor's figure | ratio |",
             "|---|---|---:|---|---:|---:|"]
    missing = []
    for area in AREAS:
        per_run = by_area[area]
        if not per_run:
            missing.append(area)
            continue
        # The same measure (name and anchor) across runs, in the first run's order.
        keys = []
        for run in per_run:
            for m in run:
                if (m.name, m.anchor_name) not in keys:
                    keys.append((m.name, m.anchor_name))
        for name, anchor_name in keys:
            ms = [m for run in per_run for m in run if (m.name, m.anchor_name) == (name, anchor_name)]
            unit = ms[0].unit
            ours = _spread([m.ours for m in ms], lambda v: _si(v, unit))
            anchors = [m.anchor for m in ms if m.anchor is not None]
            anchor = _spread(anchors, lambda v: _si(v, unit)) if anchors else "-"
            ratios = [r for r in (m.ratio() for m in ms) if r is not None]
            ratio = _spread(ratios, lambda v: f"{v:.2f}") if ratios else "-"
            lines.append(f"| {area} | {name} | {ours} | {anchor_name or '-'} | {anchor} | {ratio} |")
    if missing:
        lines += ["", "Not run: " + ", ".join(missing) + "."]
    return "\n".join(lines) + "\n"


def machine_description():
    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), "")
    except OSError:
        pass
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True, check=False).stdout.strip()
    return (f"{os.cpu_count()} cores, {cpu or platform.processor()}, Linux {platform.release()}"
            + (f", commit {commit}" if commit else ""))


def write_section(doc_path, table):
    with open(doc_path) as f:
        text = f.read()
    block = f"{BEGIN}\n{table}{END}"
    if BEGIN in text and END in text and text.index(BEGIN) < text.index(END):
        text = text[:text.index(BEGIN)] + block + text[text.index(END) + len(END):]
    else:
        text = text.rstrip("\n") + "\n\n## Every benchmark in one table (`./metaroce bench all`)\n\n" \
            + block + "\n"
    with open(doc_path, "w") as f:
        f.write(text)


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("runs_dir")
    p.add_argument("--doc", help="the markdown file whose marked part the table replaces")
    a = p.parse_args(argv)
    try:
        by_area, runs = read_runs(a.runs_dir)
    except (BadInput, OSError) as e:
        print(f"bench table: {e}", file=sys.stderr)
        return 2
    if not runs:
        print(f"bench table: {a.runs_dir}: no run folders", file=sys.stderr)
        return 2
    table = render(by_area, runs, machine_description())
    if a.doc:
        write_section(a.doc, table)
        print(f"bench table: {a.doc} updated ({len(runs)} runs)")
    else:
        sys.stdout.write(table)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
