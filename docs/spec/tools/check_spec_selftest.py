#!/usr/bin/python3
"""Negative self-tests for check_spec.py: broken inputs must fail with the right message.

    /usr/bin/python3 docs/spec/tools/check_spec_selftest.py [--spec-dir DIR] [--testcases DIR]

Each case copies the real spec and testcase inputs into a temporary directory, breaks one
thing, runs check_spec.py on the copy and asserts a nonzero exit status and an error line
naming the file, line (where there is one) and field. Standard library only.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ARGS = argparse.Namespace(spec_dir=os.path.normpath(os.path.join(HERE, "..")),
                          testcases=os.path.normpath(os.path.join(HERE, "..", "..", "..",
                                                                  "testcases")))


class CheckSpecSelfTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="check_spec_selftest.")
        self.spec = os.path.join(self.tmp, "spec")
        shutil.copytree(ARGS.spec_dir, self.spec,
                        ignore=shutil.ignore_patterns("__pycache__", "BUILD"))
        self.files = []
        for sub, suffix in (("profiles", ".pics.json"), ("pixit", ".pixit.json")):
            os.makedirs(os.path.join(self.tmp, sub))
            for name in sorted(os.listdir(os.path.join(ARGS.testcases, sub))):
                if name.endswith(suffix):
                    dst = os.path.join(self.tmp, sub, name)
                    shutil.copyfile(os.path.join(ARGS.testcases, sub, name), dst)
                    self.files.append(dst)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def path(self, *parts):
        return os.path.join(self.tmp, *parts)

    @staticmethod
    def read(path):
        with open(path, encoding="utf-8") as f:
            return f.read()

    def edit(self, path, old, new, count=1):
        text = self.read(path)
        self.assertTrue(old in text, "fixture text %r not found in %s" % (old, path))
        with open(path, "w", encoding="utf-8") as f:
            f.write(text.replace(old, new, count))

    def run_check(self):
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
        proc = subprocess.run(
            ["/usr/bin/python3", os.path.join(self.spec, "tools", "check_spec.py"),
             "--spec-dir", self.spec] + self.files,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True, env=env)
        return proc.returncode, proc.stdout

    def assertFails(self, pattern):
        rc, out = self.run_check()
        self.assertNotEqual(rc, 0, "check_spec passed a broken input:\n" + out)
        self.assertRegex(out, pattern)
        self.assertRegex(out.strip().splitlines()[-1], r"^check_spec: FAILED with \d+ errors")
        return out

    def test_unmodified_inputs_pass(self):
        rc, out = self.run_check()
        self.assertEqual(rc, 0, out)
        self.assertRegex(out, r"check_spec: OK \(\d+ clauses")

    def test_duplicate_id(self):
        self.edit(self.path("spec", "metaroce.md"), "**MR-WF-02** [MUST]", "**MR-WF-01** [MUST]")
        self.assertFails(r"metaroce\.md:\d+: MR-WF-01: field clauses\[\d+\]\.id: "
                         r"duplicate id MR-WF-01")

    def test_missing_level_in_text(self):
        self.edit(self.path("spec", "metaroce.md"), "**MR-WF-03** [MUST] {", "**MR-WF-03** {")
        self.assertFails(r"metaroce\.md:\d+: MR-WF-03: field level: missing or malformed")

    def test_missing_level_in_json(self):
        path = self.path("spec", "clauses.json")
        text = self.read(path)
        start = text.index('"id": "MR-PS-04"')
        level = text.index('"level": "MUST",\n', start)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text[:level] + text[level + len('"level": "MUST",\n'):])
        out = self.assertFails(r"clauses\.json:\d+: MR-PS-04: field clauses\[\d+\]\.level: "
                               r"missing")
        self.assertRegex(out, r"clauses\.json: field \(catalog\): out of date")

    def test_undefined_pics_key(self):
        self.edit(self.path("spec", "metaroce.md"),
                  "(pics: rc.read; role: requester; source: IBTA vol1 ch9, rxe update_wqe_psn",
                  "(pics: rc.read && rc.teleport; role: requester; source: IBTA vol1 ch9, "
                  "rxe update_wqe_psn")
        self.assertFails(r"metaroce\.md:\d+: MR-PS-02: field clauses\[\d+\]\.pics: "
                         r"undefined PICS key rc\.teleport")

    def test_bad_pics_expression(self):
        self.edit(self.path("spec", "metaroce.md"), "(pics: ext.cc && cnp.np;", "(pics: ext.cc && && cnp.np;")
        self.assertFails(r"field clauses\[\d+\]\.pics: bad expression")

    def test_undefined_parameter(self):
        self.edit(self.path("spec", "metaroce.md"), "within T_ACK_DELAY_MAX of receiving it",
                  "within T_NOT_A_PARAM of receiving it")
        self.assertFails(r"MR-AK-01: field clauses\[\d+\]\.params: undefined parameter "
                         r"T_NOT_A_PARAM")

    def test_wrong_icrc_in_example(self):
        path = self.path("spec", "metaroce.md")
        text = self.read(path)
        m = re.search(r"```packet id=EX-B1 layer=eth\n(?:.*\n)*?(.*)\n```", text)
        last = m.group(1)
        broken = last[:-2] + ("00" if last[-2:] != "00" else "01")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text[:m.start(1)] + broken + text[m.end(1):])
        self.assertFails(r"metaroce\.md:\d+: EX-B1: field icrc: dump carries [0-9a-f]{8}, "
                         r"correct ICRC is [0-9a-f]{8}")

    def test_stale_catalog(self):
        self.edit(self.path("spec", "metaroce.md"), "has UDP destination port 4791.",
                  "has UDP destination port 4791 (0x12B7).")
        self.assertFails(r"clauses\.json: field \(catalog\): out of date with "
                         r"metaroce\.md/pics\.md \(first difference: clause MR-WF-01, "
                         r"field statement\)")

    def test_profile_missing_and_undefined_key(self):
        path = self.path("profiles", "rxe.pics.json")
        self.edit(path, '"rc.send": true,', '"rc.warp": true,')
        out = self.assertFails(r"rxe\.pics\.json:\d+: field features\.rc\.warp: undefined "
                               r"PICS key")
        self.assertRegex(out, r"rxe\.pics\.json:\d+: field features\.rc\.send: missing")

    def test_profile_unmet_requirement(self):
        path = self.path("profiles", "roce-v2-base.pics.json")
        self.edit(path, '"ext.multipath": false', '"ext.multipath": true')
        self.assertFails(r"roce-v2-base\.pics\.json:\d+: field features\.ext\.multipath: "
                         r"claimed, but the feature it requires, ext\.negotiation, is not")

    def test_profile_unknown_deviation_clause(self):
        self.edit(self.path("profiles", "rxe.pics.json"), '"clause": "MR-RT-07"',
                  '"clause": "MR-RT-99"')
        self.assertFails(r"rxe\.pics\.json:\d+: field deviations\[0\]\.clause: unknown "
                         r"clause id 'MR-RT-99'")

    def test_schema_catches_wrong_type(self):
        self.edit(self.path("profiles", "reference.pics.json"), '"schema_version": 1,',
                  '"schema_version": 1,\n  "notes": 42,')
        self.assertFails(r"reference\.pics\.json:\d+: field notes: is not of type string "
                         r"\(pics\.schema\.json\)")

    def test_pixit_missing_tolerance_and_bad_address(self):
        path = self.path("pixit", "default.pixit.json")
        text = self.read(path)
        text = re.sub(r'\n  "tolerance": \{[^}]*\},', "", text)
        text = text.replace('"ipv4": "198.18.0.2"', '"ipv4": "10.0.0.2"')
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        out = self.assertFails(r"default\.pixit\.json(:\d+)?: field tolerance: missing")
        self.assertRegex(out, r"default\.pixit\.json:\d+: field dut\.ipv4: 10\.0\.0\.2 is "
                              r"outside 198\.18\.0\.0/15")

    def test_pixit_parameter_type_and_range(self):
        path = self.path("pixit", "rxe.pixit.json")
        self.edit(path, '"T_CNP_MIN_INTERVAL": 50', '"T_CNP_MIN_INTERVAL": "50"')
        self.edit(path, '"N_EXT_RETRY": 7', '"N_EXT_RETRY": 26')
        out = self.assertFails(r"rxe\.pixit\.json:\d+: field parameters\.T_CNP_MIN_INTERVAL: "
                               r"not a number")
        self.assertRegex(out, r"field parameters\.N_EXT_RETRY: 26 outside \[0, 25\]")

    # ---- revision 2: retired clause ids and secure-mode examples -------------------------

    def test_aes_gcm_vectors(self):
        sys.path.insert(0, os.path.join(self.spec, "tools"))
        import aes_gcm
        self.assertEqual(aes_gcm.selftest(), 0)

    def test_retired_id_reused(self):
        self.edit(self.path("spec", "metaroce.md"), "**MR-SA-17** [MUST]", "**MR-SA-02** [MUST]")
        out = self.assertFails(r"metaroce\.md:\d+: MR-SA-02: field retired\[\d+\]\.id: retired id "
                               r"is used by a clause again")
        self.assertRegex(out, r"MR-SA-02: field retired\[\d+\]\.replaced_by: names 'MR-SA-17'")

    def test_retired_replacement_unknown(self):
        self.edit(self.path("spec", "metaroce.md"), "| MR-PF-10 | 2 | MR-PF-13 |",
                  "| MR-PF-10 | 2 | MR-PF-99 |")
        self.assertFails(r"metaroce\.md:\d+: MR-PF-10: field retired\[\d+\]\.replaced_by: names "
                         r"'MR-PF-99', which is not a clause")

    def test_deviation_names_retired_clause(self):
        self.edit(self.path("profiles", "rxe.pics.json"), '"clause": "MR-RT-07"',
                  '"clause": "MR-SA-02"')
        self.assertFails(r"rxe\.pics\.json:\d+: field deviations\[0\]\.clause: clause MR-SA-02 "
                         r"is retired; it was replaced by MR-SA-17")

    def test_secure_example_bad_tag(self):
        sys.path.insert(0, os.path.join(self.spec, "tools"))
        import icrc
        path = self.path("spec", "metaroce.md")
        text = self.read(path)
        m = re.search(r"```packet id=EX-S1 layer=ip\n((?:[0-9a-f]{4}  .*\n)*)```", text)
        data = bytearray.fromhex("".join(l[6:] for l in m.group(1).splitlines()))
        data[-5] ^= 0x01                      # last byte of the packet tag
        data[-4:] = icrc.compute(bytes(data[:-4]))  # keep the ICRC right
        dump = "".join("%04x  %s\n" % (o, " ".join("%02x" % b for b in data[o:o + 16]))
                       for o in range(0, len(data), 16))
        with open(path, "w", encoding="utf-8") as f:
            f.write(text[:m.start(1)] + dump + text[m.end(1):])
        self.assertFails(r"metaroce\.md:\d+: EX-S1: field secure: packet tag does not verify")

    def test_secure_example_without_sx(self):
        # SX (BTH byte 8 bit 6) cleared with the ICRC kept right: no SECH may follow
        sys.path.insert(0, os.path.join(self.spec, "tools"))
        import icrc
        path = self.path("spec", "metaroce.md")
        text = self.read(path)
        m = re.search(r"```packet id=EX-S2 layer=ip\n((?:[0-9a-f]{4}  .*\n)*)```", text)
        data = bytearray.fromhex("".join(l[6:] for l in m.group(1).splitlines()))
        self.assertEqual(data[28 + 8] & 0x40, 0x40)
        data[28 + 8] &= ~0x40 & 0xFF              # BTH byte 8 (IPv4 20 + UDP 8 bytes in)
        data[-4:] = icrc.compute(bytes(data[:-4]))
        dump = "".join("%04x  %s\n" % (o, " ".join("%02x" % b for b in data[o:o + 16]))
                       for o in range(0, len(data), 16))
        with open(path, "w", encoding="utf-8") as f:
            f.write(text[:m.start(1)] + dump + text[m.end(1):])
        self.assertFails(r"metaroce\.md:\d+: EX-S2: field secure: BTH SX is 0")

    def test_retired_id_reused_without_replacement_change(self):
        # a congestion id retired in revision 2 given to a new clause; its replacements
        # MR-SC-13 and MR-SC-14 stay live, so only the reuse is reported
        self.edit(self.path("spec", "metaroce.md"), "**MR-SC-23** [MUST]", "**MR-SC-03** [MUST]")
        out = self.assertFails(r"metaroce\.md:\d+: MR-SC-03: field retired\[\d+\]\.id: retired "
                               r"id is used by a clause again")
        self.assertNotRegex(out, r"MR-SC-03: field retired\[\d+\]\.replaced_by")

    def test_retired_id_unknown_area(self):
        self.edit(self.path("spec", "metaroce.md"), "| MR-SC-10 | 2 |", "| MR-ZZ-10 | 2 |")
        self.assertFails(r"metaroce\.md:\d+: field retired\[\d+\]\.id: missing or malformed id "
                         r"'MR-ZZ-10'")

    def test_window_replay_table_drift(self):
        self.edit(self.path("spec", "metaroce.md"), "| quick adapt | 12288 |",
                  "| quick adapt | 12289 |")
        self.assertFails(r"metaroce\.md:\d+: field EX-W1: EX-W1 replay row differs")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--spec-dir", default=ARGS.spec_dir)
    ap.add_argument("--testcases", default=ARGS.testcases)
    ns, rest = ap.parse_known_args()
    ARGS.spec_dir, ARGS.testcases = os.path.abspath(ns.spec_dir), os.path.abspath(ns.testcases)
    prog = unittest.main(argv=[sys.argv[0]] + rest, exit=False, verbosity=1)
    res = prog.result
    failed = len(res.failures) + len(res.errors)
    print("check_spec_selftest: %d passed, %d failed" % (res.testsRun - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
