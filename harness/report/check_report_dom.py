#!/usr/bin/python3
"""Checks the DOM headless Chromium rendered from a run's index.html against report.json.

  check_report_dom.py DOM.html REPORT.json

The DOM must hold the clause matrix (section#clauses with table.matrix and one row per
clause of report.json's coverage) and exactly one section.test per test of report.json,
with the id the report generator gives it (t-<tp id>). Prints what is missing; exits 1.
"""

import json
import sys
from html.parser import HTMLParser


class Collector(HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids = {}            # id -> (tag, classes)
        self.test_sections = []  # ids of <section class="test ...">
        self.matrix_tables = 0
        self._in_clauses = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        if "id" in a:
            self.ids[a["id"]] = (tag, classes)
        if tag == "section":
            if a.get("id") == "clauses":
                self._in_clauses = 1
            elif "test" in classes:
                self.test_sections.append(a.get("id"))
        if tag == "table" and "matrix" in classes and self._in_clauses:
            self.matrix_tables += 1

    def handle_endtag(self, tag):
        if tag == "section":
            self._in_clauses = 0


def main():
    dom_path, report_path = sys.argv[1], sys.argv[2]
    with open(dom_path, encoding="utf-8") as f:
        dom = f.read()
    with open(report_path, encoding="utf-8") as f:
        report = json.load(f)
    c = Collector()
    c.feed(dom)
    problems = []
    if c.ids.get("clauses", ("",))[0] != "section":
        problems.append("no <section id=\"clauses\"> (the clause matrix)")
    if c.matrix_tables != 1:
        problems.append("%d <table class=\"matrix\"> in the clause matrix, expected 1"
                        % c.matrix_tables)
    clause_rows = [i for i, (tag, _) in c.ids.items() if tag == "tr" and i.startswith("c-")]
    if not clause_rows:
        problems.append("the clause matrix has no clause rows (tr id=c-...)")
    tests = [t["tp_id"] for t in report["tests"]]
    if not tests:
        problems.append("report.json has no tests")
    sections = collections_count(c.test_sections)
    for tp in tests:
        n = sections.get("t-" + tp, 0)
        if n != 1:
            problems.append("test %s: %d sections (id t-%s), expected 1" % (tp, n, tp))
    extra = set(sections) - {"t-" + tp for tp in tests}
    if extra:
        problems.append("sections for tests not in report.json: %s" % sorted(extra))
    for p in problems:
        print("index.html DOM: " + p)
    print("index.html DOM: clause matrix with %d clause rows; %d test sections for %d tests "
          "of report.json" % (len(clause_rows), len(c.test_sections), len(tests)))
    return 1 if problems else 0


def collections_count(items):
    out = {}
    for i in items:
        out[i] = out.get(i, 0) + 1
    return out


if __name__ == "__main__":
    sys.exit(main())
