#!/bin/bash
# chromium_report_test: index.html of a small run, opened in headless Chromium (Debian's
# chromium, installed by ./metaroce with the oracles group of tools/packages.txt): the
# rendered DOM has the clause matrix and one section per test of report.json, and a
# screenshot is a non-empty PNG. Chromium is required: its absence fails the test.
# Args: METAROCE CHECKER
set -uo pipefail
metaroce=$1 checker=$2
chromium=$(command -v chromium || true)
if [[ -z "$chromium" ]]; then
  echo "FAIL: chromium is not installed (apt-get install -y chromium; tools/packages.txt, group oracles)"
  exit 1
fi
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
out="$tmp/run"
"$metaroce" run --quiet --filter 'RC-PSN-00*,RC-CNP-001' --out "$out"
rc=$?
if [[ $rc -ne 0 ]]; then
  echo "FAIL: metaroce run exited $rc"
  exit 1
fi
# Chromium writes its profile under HOME; keep it in the test's own directory.
export HOME="$tmp/home"
mkdir -p "$HOME"
flags=(--headless --no-sandbox --disable-gpu --user-data-dir="$tmp/profile" --window-size=1400,1000)
timeout 90 "$chromium" "${flags[@]}" --dump-dom "file://$out/index.html" > "$tmp/dom.html" 2> "$tmp/chromium-dom.log"
rc=$?
if [[ $rc -ne 0 || ! -s "$tmp/dom.html" ]]; then
  echo "FAIL: chromium --dump-dom exited $rc"; tail -20 "$tmp/chromium-dom.log"; exit 1
fi
/usr/bin/python3 "$checker" "$tmp/dom.html" "$out/report.json" || exit 1
timeout 90 "$chromium" "${flags[@]}" --screenshot="$tmp/shot.png" "file://$out/index.html" 2> "$tmp/chromium-shot.log"
rc=$?
if [[ $rc -ne 0 || ! -s "$tmp/shot.png" ]]; then
  echo "FAIL: chromium --screenshot exited $rc or wrote no file"; tail -20 "$tmp/chromium-shot.log"; exit 1
fi
if [[ "$(head -c 8 "$tmp/shot.png" | od -An -tx1 | tr -d ' \n')" != "89504e470d0a1a0a" ]]; then
  echo "FAIL: the screenshot is not a PNG"; exit 1
fi
echo "chromium: screenshot $(stat -c %s "$tmp/shot.png") bytes"
