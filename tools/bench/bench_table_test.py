#!/usr/bin/python3
"""Tests for tools/bench/bench_table.py: every area's file read, medians with their spread,
ratios per run, a bad file named, and the marked part of a document replaced."""
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_table as bt  # noqa: E402


def gbench(rows):
    return {"benchmarks": [dict(name=n, **fields) for n, fields in rows.items()]}


def transport_run(write, memcpy, one_qp, many_qps, heap):
    return gbench({"BM_WriteGoodput": {"bytes_per_second": write},
                   "BM_Memcpy64K": {"bytes_per_second": memcpy},
                   "BM_QpScaling/1": {"items_per_second": one_qp, "heap_bytes_per_qp": 3600},
                   "BM_QpScaling/10000": {"items_per_second": many_qps, "heap_bytes_per_qp": heap}})


class BenchTableTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.runs = self.dir.name

    def tearDown(self):
        self.dir.cleanup()

    def put(self, run, area, content):
        os.makedirs(os.path.join(self.runs, str(run)), exist_ok=True)
        with open(os.path.join(self.runs, str(run), f"{area}.json"), "w") as f:
            json.dump(content, f)

    def table(self):
        by_area, runs = bt.read_runs(self.runs)
        return bt.render(by_area, runs, "test machine")

    def row(self, table, measure, anchor):
        for line in table.splitlines():
            cells = [c.strip() for c in line.strip("|").split("|")]
            if len(cells) == 6 and cells[1] == measure and cells[3] == anchor:
                return cells
        self.fail(f"no row '{measure}' against '{anchor}' in:\n{table}")

    def test_median_and_spread_of_three_runs_with_the_ratio_of_each_run(self):
        # Ratios per run: 0.1, 0.5, 0.2 -> median 0.2; the ratio of the medians would be 0.25.
        self.put(1, "transport", transport_run(1e9, 10e9, 1e6, 5e5, 800))
        self.put(2, "transport", transport_run(2e9, 4e9, 1e6, 5e5, 800))
        self.put(3, "transport", transport_run(4e9, 20e9, 1e6, 5e5, 800))
        cells = self.row(self.table(), "RDMA WRITE 64 KiB, MTU 4096, goodput", "memcpy 64 KiB")
        self.assertEqual(cells[2], "2.00 GB/s (1.00 GB/s-4.00 GB/s)")
        self.assertEqual(cells[4], "10.00 GB/s (4.00 GB/s-20.00 GB/s)")
        self.assertEqual(cells[5], "0.20 (0.10-0.50)")

    def test_write_goodput_against_the_bound_its_work_sets(self):
        # 2 copies at 16 GB/s and 2 ICRCs at 16 GB/s per byte: 4 GB/s; goodput 3 GB/s is 0.75.
        run = transport_run(3e9, 10e9, 1e6, 5e5, 800)
        run["benchmarks"] += [{"name": "BM_Memcpy4K", "bytes_per_second": 16e9},
                              {"name": "BM_Icrc4K", "bytes_per_second": 16e9}]
        self.put(1, "transport", run)
        cells = self.row(self.table(), "RDMA WRITE 64 KiB, MTU 4096, goodput",
                         "its work bound: 2 copies + 2 ICRCs per byte at 4 KiB")
        self.assertEqual(cells[4], "4.00 GB/s")
        self.assertEqual(cells[5], "0.75")

    def test_scale_rows_against_linear_growth(self):
        self.put(1, "suite", {"tests": 200, "suite_1core_s": 2.0, "empty_1core_s": 1.0,
                              "scale": [{"factor": 4, "wall_s": 10.0},
                                        {"factor": 16, "wall_s": 32.0}]})
        table = self.table()
        self.assertEqual(self.row(table, "the whole suite x4 (800 test runs), one core",
                                  "4 x the 1x time")[5], "0.80")
        self.assertEqual(self.row(table, "the whole suite x16 (3,200 test runs), one core",
                                  "16 x the 1x time")[5], "1.00")

    def test_dpdk_rows_against_testpmd_and_libpcap_against_raw(self):
        rows = [{"mode": "txonly", "contender": c, "pps_median": v, "pps_min": v, "pps_max": v}
                for c, v in (("DpdkLink", 9e5), ("testpmd", 1e6), ("libpcap", 3e5),
                             ("raw AF_PACKET", 6e5))]
        self.put(1, "dpdk", {"area": "dpdk", "rows": rows})
        table = self.table()
        self.assertEqual(self.row(table, "DpdkLink txonly, 64-byte frames",
                                  "dpdk-testpmd txonly")[5], "0.90")
        self.assertEqual(self.row(table, "libpcap txonly, 64-byte frames",
                                  "raw AF_PACKET txonly")[5], "0.50")

    def test_times_and_sizes_are_better_when_smaller(self):
        self.put(1, "transport", transport_run(1e9, 10e9, 1e6, 5e5, 800))
        self.put(1, "suite", {"tests": 194, "suite_1core_s": 4.0, "empty_1core_s": 1.0})
        table = self.table()
        self.assertEqual(self.row(table, "heap per connected idle base QP", "1 KB")[5], "1.25")
        self.assertEqual(self.row(table, "the whole suite, 194 test purposes, one core",
                                  "an empty test x194")[5], "0.25")

    def test_every_area_is_read_and_missing_ones_are_named(self):
        self.put(1, "codec", {"mixes": [{"mix": "small", "metaroce_pps": 8e6, "tshark_pps": 8e4,
                                         "scapy_pps": 2e3, "metaroce_ext_pps": 6e6}],
                              "icrc": [{"bytes": 1024, "icrc_gbps": 30, "memcpy_gbps": 60,
                                        "isal_gbps": 30}]})
        self.put(1, "io", gbench({"BM_PcapLink/min_time:2.000/real_time": {"frames_per_s": 3e5},
                                  "BM_RawAfPacket/min_time:2.000/real_time":
                                      {"frames_per_s": 2.5e5}}))
        self.put(1, "analyze", {"summary": {"metaroce_1000000": {"pps_wall_median": 1.3e6},
                                            "tshark_1000000": {"pps_wall": [1.2e4, 1.4e4]}}})
        self.put(1, "replay", {"metaroce_pps": [5e5, 7e5], "tcpreplay_pps": [4e5, 4e5]})
        self.put(1, "fabric", [
            {"scenario": "incast", "variant": "Part II", "flows": 2, "completed": 2,
             "last_finish_ns": 3000, "ideal_ns": 2000, "capacity_bound_ns": 2400},
            {"scenario": "incast", "variant": "base RoCEv2, 1 ms", "flows": 2, "completed": 2,
             "last_finish_ns": 30000, "ideal_ns": 2000},
            {"scenario": "incast", "variant": "Part II, credits", "flows": 2, "completed": 1,
             "last_finish_ns": 1000, "ideal_ns": 2000}])
        table = self.table()
        self.assertEqual(self.row(table, "decode + ICRC, small mix", "tshark")[5], "100.00")
        self.assertEqual(self.row(table, "decode + ICRC, small mix, Ext twin",
                                  "the base capture")[5], "0.75")
        self.assertEqual(self.row(table, "ICRC, 1024 B", "ISA-L crc32_gzip_refl")[5], "1.00")
        self.assertEqual(self.row(table, "PcapLink on a veth pair, frames sent + received",
                                  "raw AF_PACKET socket")[5], "1.20")
        self.assertEqual(self.row(table, "analyze, 1,000,000 frames (wall)", "tshark")[5], "100.00")
        self.assertEqual(self.row(table, "replay --inject --fast onto a veth pair",
                                  "tcpreplay --topspeed")[5], "1.50")
        self.assertEqual(self.row(table, "incast, Part II, last completion",
                                  "what the fabric allows")[5], "0.80")
        self.assertEqual(self.row(table, "incast, Part II, last completion",
                                  "base RoCEv2, 1 ms timeout")[5], "10.00")
        self.assertNotIn("credits", table)  # a row whose flows did not all finish has no time
        self.assertIn("Not run: transport, dpdk, suite.", table)

    def test_a_file_without_a_field_is_named_with_the_field(self):
        self.put(1, "suite", {"tests": 194})
        with self.assertRaises(bt.BadInput) as e:
            bt.read_runs(self.runs)
        self.assertIn("suite.json", str(e.exception))
        self.assertIn("'suite_1core_s'", str(e.exception))
        self.put(1, "suite", "not json at all")
        with open(os.path.join(self.runs, "1", "io.json"), "w") as f:
            f.write("{broken")
        with self.assertRaises(bt.BadInput) as e:
            bt.read_runs(self.runs)
        self.assertIn("io.json", str(e.exception))

    def test_the_marked_part_of_a_document_is_replaced_and_the_rest_kept(self):
        doc = os.path.join(self.runs, "doc.md")
        with open(doc, "w") as f:
            f.write(f"# Title\nbefore\n{bt.BEGIN}\nold table\n{bt.END}\nafter\n")
        bt.write_section(doc, "new table\n")
        with open(doc) as f:
            text = f.read()
        self.assertEqual(text, f"# Title\nbefore\n{bt.BEGIN}\nnew table\n{bt.END}\nafter\n")
        plain = os.path.join(self.runs, "plain.md")
        with open(plain, "w") as f:
            f.write("# Only a title\n")
        bt.write_section(plain, "t\n")
        with open(plain) as f:
            self.assertTrue(f.read().endswith(f"{bt.BEGIN}\nt\n{bt.END}\n"))


if __name__ == "__main__":
    unittest.main()
