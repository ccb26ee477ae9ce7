// File: html_style.cpp
//
// The stylesheet of index.html, and the verdict badge every part uses. Filters are pure
// CSS: radio buttons before <main> hide the tests of other verdicts (no JavaScript).
#include "harness/report/escape.h"
#include "harness/report/html_parts.h"

namespace mr::report::html {

std::string_view stylesheet() {
  return R"css(
:root{--pass:#1a7f37;--fail:#cf222e;--error:#8250df;--inconc:#bf8700;--none:#57606a;--na:#8c959f}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 auto;max-width:1400px;padding:0 1.5em 4em;color:#1f2328}
h1{font-size:1.6em;margin:.8em 0 .3em}h2{border-bottom:1px solid #d0d7de;padding-bottom:.2em;margin-top:1.6em}
h3{margin:.2em 0}code,.mono,td.v,td.ref,td.t{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px}
table{border-collapse:collapse}th,td{border:1px solid #d0d7de;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f6f8fa}
.badge{display:inline-block;border-radius:1em;padding:0 .7em;color:#fff;font-weight:600;font-size:12px;text-transform:uppercase;white-space:nowrap}
.badge.v-pass{background:var(--pass)}.badge.v-fail{background:var(--fail)}.badge.v-error{background:var(--error)}
.badge.v-inconc{background:var(--inconc)}.badge.v-none{background:var(--none)}.badge.v-not-applicable{background:var(--na)}
.mutant-banner{background:#fde2e1;border:2px solid #b91c1c;padding:.5em;font-weight:bold}.meta th{width:10em}.counts>span{margin-right:1.2em;white-space:nowrap}
.filters{margin:1em 0;padding:.5em;background:#f6f8fa;border-radius:6px}
.filters label{margin-right:1.2em;cursor:pointer}
input.filter{position:absolute;opacity:0;pointer-events:none}
#f-fail:checked~main .test:not(.v-fail),#f-error:checked~main .test:not(.v-error),
#f-inconc:checked~main .test:not(.v-inconc),#f-pass:checked~main .test:not(.v-pass),
#f-na:checked~main .test:not(.v-not-applicable),#f-none:checked~main .test:not(.v-none),
#f-fail:checked~main .toc li:not(.v-fail),#f-error:checked~main .toc li:not(.v-error),
#f-inconc:checked~main .toc li:not(.v-inconc),#f-pass:checked~main .toc li:not(.v-pass),
#f-na:checked~main .toc li:not(.v-not-applicable),#f-none:checked~main .toc li:not(.v-none),
#f-uncovered:checked~main tr.covered{display:none}
#f-all:checked~.filters label[for=f-all],#f-fail:checked~.filters label[for=f-fail],
#f-error:checked~.filters label[for=f-error],#f-inconc:checked~.filters label[for=f-inconc],
#f-pass:checked~.filters label[for=f-pass],#f-na:checked~.filters label[for=f-na],
#f-none:checked~.filters label[for=f-none],#f-uncovered:checked~.filters label[for=f-uncovered]{font-weight:700;text-decoration:underline}
.matrix td.statement{max-width:46em}.matrix td.mono{white-space:nowrap}
.matrix tr.uncovered td{background:#fff8c5}.matrix tr.uncovered.mandatory td{background:#ffebe9}
.matrix tr.unknown td{background:#fbefff}
.matrix .tp{display:inline-block;margin:0 .5em .2em 0;white-space:nowrap}
.toc{columns:4 16em;padding-left:1.2em}.toc li{break-inside:avoid}
.test{border:1px solid #d0d7de;border-left-width:6px;border-radius:6px;padding:.6em 1em;margin:1em 0}
.test.v-pass{border-left-color:var(--pass)}.test.v-fail{border-left-color:var(--fail)}
.test.v-error{border-left-color:var(--error)}.test.v-inconc{border-left-color:var(--inconc)}
.test.v-none{border-left-color:var(--none)}.test.v-not-applicable{border-left-color:var(--na)}
.test dl{display:grid;grid-template-columns:8em 1fr;gap:2px 1em;margin:.5em 0}.test dt{color:#57606a}.test dd{margin:0}
.failures td.v{white-space:pre-wrap;overflow-wrap:break-word}.failures td.clauses{min-width:14em}.failures .clause{display:block}.failures .clause a{white-space:nowrap}
.diff tr.differs td{background:#ffebe9}.diff tr.focus td{font-weight:700}.diff td.any{color:#8c959f;font-style:italic}
summary{cursor:pointer;color:#0969da}
.ladder{width:100%;margin:.4em 0}.ladder td,.ladder th{border:none;padding:1px 6px}
.ladder th.lane{width:6em;text-align:center;border-bottom:2px solid #1f2328}
.ladder td.lane{width:6em}.ladder td.lane.tester{border-right:3px solid #1f2328}.ladder td.lane.dut{border-left:3px solid #1f2328}
.ladder td.t,.ladder td.n{color:#57606a;text-align:right;white-space:nowrap}
.ladder td.msg{padding:2px 0;min-width:24em}
.arrow{position:relative;border-bottom:2px solid #0969da;color:#1f2328;text-align:center;padding:0 14px;font-family:ui-monospace,Menlo,monospace;font-size:12.5px;overflow-wrap:break-word}
.to-tester .arrow{border-bottom-color:#1a7f37}
.to-dut .arrow::after{content:"";position:absolute;right:0;bottom:-6px;border:5px solid transparent;border-left:9px solid #0969da;border-right:0}
.to-tester .arrow::before{content:"";position:absolute;left:0;bottom:-6px;border:5px solid transparent;border-right:9px solid #1a7f37;border-left:0}
.ladder tr.unmatched .arrow{border-bottom-style:dashed;border-bottom-color:var(--fail)}
.ladder tr.unmatched td.ref{color:var(--fail)}
.ladder td.ref{color:#57606a;white-space:nowrap}
.ladder tr.failing td{background:#ffebe9}.ladder tr.failing .arrow{border-bottom-color:var(--fail);font-weight:700}
.paths table{margin:.4em 0}.paths td:nth-child(n+4){text-align:right}.paths tr.dead td{background:#ffebe9}
.ladder .fails{color:var(--fail);font-weight:700}
.mono,.v,td.n,td.t{font-variant-numeric:tabular-nums}
)css";
}

std::string verdict_class(Verdict v) { return "v-" + std::string(to_string(v)); }

std::string verdict_badge(Verdict v) {
  return "<span class=\"badge " + verdict_class(v) + "\">" + std::string(to_string(v)) + "</span>";
}

std::string test_anchor(std::string_view tp_id) { return "t-" + id_escape(tp_id); }

std::string clause_anchor(std::string_view clause_id) { return "c-" + id_escape(clause_id); }

}  // namespace mr::report::html
