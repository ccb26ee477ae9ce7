#!/usr/bin/python3
"""Reference model of the MetaRoCE sender window (metaroce.md section 26.2).

    /usr/bin/python3 docs/spec/tools/cc_model.py            # print the replay of EX-W1
    /usr/bin/python3 docs/spec/tools/cc_model.py --check    # compare it with the table in
                                                            # metaroce.md section 26.5

The model is the pseudo-code of section 26.2 in exact rational arithmetic (fractions), so
two implementations that follow the text agree on every window. A test replays an ACK
sequence against a DUT and compares the DUT's window with the one this model gives,
within R_SC_CWND_TOLERANCE. check_spec.py runs the --check comparison, so the worked
example in the text cannot drift from the algorithm. Standard library only.
"""
import os
import re
import sys
from fractions import Fraction as F

# Defaults of section 30 (the worked example uses them).
DEFAULTS = {
    "B_CWND_INIT": 125000, "B_CWND_MIN": 4096, "B_CWND_MAX": 187500,
    "T_SC_BASE_RTT": 10000,          # ns (the table of section 30 gives us)
    "T_SC_TARGET_QDELAY": 8000,      # ns
    "T_SC_QA_DELAY": 32000,          # ns
    "B_SC_FAIR_INC": 20480, "B_SC_PROP_INC": 16384,
    "R_SC_MD_GAIN": F(8, 10), "R_SC_MD_FLOOR": F(1, 2), "R_SC_QA_GATE": F(1, 8),
}


class Window:
    """State of one QP's window; times in ns, sizes in bytes."""

    def __init__(self, p=None, now=0):
        self.p = dict(DEFAULTS, **(p or {}))
        p = self.p
        self.cwnd = p["B_CWND_INIT"]
        self.base_rtt = p["T_SC_BASE_RTT"]
        self.delay = 0
        self.t_md = None
        self.qa_end = now + p["T_SC_BASE_RTT"] + p["T_SC_TARGET_QDELAY"]
        self.achieved = 0
        self.qa_trigger = False
        self.qa_ignore = 0
        self.step = ""

    def _bound(self):
        p = self.p
        self.cwnd = min(p["B_CWND_MAX"], max(p["B_CWND_MIN"], self.cwnd))

    def _sample(self, rtt):
        if rtt is not None:
            self.base_rtt = min(self.base_rtt, rtt)
            self.delay = rtt - self.base_rtt
        if self.delay > self.p["T_SC_QA_DELAY"]:
            self.qa_trigger = True

    def _quick_adapt(self, now, in_flight):
        """Step 2 of section 26.2; True when it set the window."""
        p = self.p
        if now < self.qa_end:
            return False
        done = False
        if self.qa_trigger and self.achieved < p["B_CWND_MAX"] * p["R_SC_QA_GATE"]:
            self.cwnd = max(p["B_CWND_MIN"], self.achieved)
            self.qa_ignore = in_flight
            done = True
        self.achieved = 0
        self.qa_trigger = False
        self.qa_end = now + self.base_rtt + p["T_SC_TARGET_QDELAY"]
        return done

    def on_ack(self, now, acked, ecn, rtt=None, in_flight=0):
        """An Ext ACK (or a READ response packet, rtt None) newly acknowledging `acked`."""
        p = self.p
        T = p["T_SC_TARGET_QDELAY"]
        self._sample(rtt)
        self.achieved += acked
        if self._quick_adapt(now, in_flight):
            self.step = "quick adapt"
            self._bound()
            return self.cwnd
        if self.qa_ignore > 0:
            self.qa_ignore = max(0, self.qa_ignore - acked)
            if ecn:
                self.step = "ignored (after quick adapt)"
                return self.cwnd
        d = self.delay
        if not ecn and d < T:
            self.cwnd = self.cwnd + (F(p["B_SC_PROP_INC"]) * acked * (T - d)) // (T * self.cwnd)
            self.step = "proportional increase"
        elif not ecn:
            self.cwnd = self.cwnd + (F(p["B_SC_FAIR_INC"]) * acked) // self.cwnd
            self.step = "fair increase"
        elif d >= T:
            if self.t_md is None or now - self.t_md >= self.base_rtt:
                f = max(p["R_SC_MD_FLOOR"], 1 - p["R_SC_MD_GAIN"] * F(d - T, d))
                self.cwnd = (self.cwnd * f) // 1
                self.t_md = now
                self.step = "multiplicative decrease x %s" % f
            else:
                self.step = "no change (decrease gated)"
        else:
            self.step = "no change (ECN, low delay)"
        self.cwnd = int(self.cwnd)
        self._bound()
        return self.cwnd

    def on_loss(self, now, size, rtt=None, in_flight=0):
        """NAK 0x65/0x66 for a packet of `size` payload bytes, or its RTO (rtt None)."""
        self._sample(rtt)
        self.cwnd = max(self.p["B_CWND_MIN"], self.cwnd - size)
        self.qa_trigger = True
        if self._quick_adapt(now, in_flight):
            self.step = "loss, then quick adapt"
        else:
            self.step = "loss: minus the packet"
        self._bound()
        return self.cwnd


# The ACK sequence of example EX-W1 (section 26.5): (time us, kind, bytes, ECE, rtt us,
# bytes in flight). kind "A" = ACK, "T" = trim NAK.
EX_W1 = [
    (11.0, "A", 32768, 0, 11.0, 0),
    (12.0, "A", 32768, 0, 9.5, 0),
    (13.0, "A", 16384, 1, 12.0, 0),
    (14.0, "A", 16384, 1, 19.5, 0),
    (16.0, "A", 8192, 0, 18.5, 0),
    (20.0, "A", 4096, 1, 27.5, 0),
    (21.0, "T", 4096, 0, None, 0),
    (26.0, "A", 4096, 1, 45.5, 0),
    (38.0, "A", 8192, 1, 40.0, 40960),
    (40.0, "A", 16384, 1, 30.0, 0),
    (42.0, "A", 24576, 0, 14.5, 0),
    (43.0, "A", 8192, 0, 9.5, 0),
    (49.0, "A", 8192, 1, 25.0, 0),
]


def replay(seq=EX_W1):
    w = Window()
    rows = []
    for t, kind, size, ece, rtt, infl in seq:
        now = round(t * 1000)
        r = None if rtt is None else round(rtt * 1000)
        if kind == "A":
            w.on_ack(now, size, bool(ece), r, infl)
        else:
            w.on_loss(now, size, r, infl)
        rows.append((t, kind, size, ece, rtt, infl, w.base_rtt, w.delay, w.step, w.cwnd))
    return rows


def fmt_us(v):
    return "-" if v is None else ("%g" % v)


def table(rows):
    out = ["| # | t (us) | Event | A (bytes) | ECE | rtt (us) | base_rtt (us) | delay (us) "
           "| Step | cwnd after (bytes) |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for i, (t, kind, size, ece, rtt, infl, base, delay, step, cwnd) in enumerate(rows, 1):
        ev = "ACK" if kind == "A" else "NAK 0x65 (%d-byte packet)" % size
        if infl:
            ev += ", %d bytes in flight" % infl
        a = str(size) if kind == "A" else "0"
        out.append("| %d | %s | %s | %s | %s | %s | %s | %s | %s | %d |" % (
            i, fmt_us(t), ev, a, ece if kind == "A" else "-", fmt_us(rtt),
            "%g" % (base / 1000), "%g" % (delay / 1000), step, cwnd))
    return "\n".join(out)


MARK = "<!-- ccreplay EX-W1 -->"


def check(md_path):
    """Return a list of (line, message) for rows of the EX-W1 table that differ."""
    with open(md_path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    try:
        start = lines.index(MARK) + 1
    except ValueError:
        return [(None, "no %s marker" % MARK)]
    want = table(replay()).split("\n")
    errs = []
    for i, w in enumerate(want):
        got = lines[start + i] if start + i < len(lines) else ""
        if got != w:
            errs.append((start + i + 1, "EX-W1 replay row differs: want %r" % w))
    if start + len(want) < len(lines) and lines[start + len(want)].startswith("|"):
        errs.append((start + len(want) + 1, "EX-W1 table has extra rows"))
    return errs


if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    if "--check" in sys.argv:
        errs = check(os.path.join(here, "..", "metaroce.md"))
        for line, msg in errs:
            print("metaroce.md:%s: %s" % (line, msg))
        sys.exit(1 if errs else 0)
    print(table(replay()))
