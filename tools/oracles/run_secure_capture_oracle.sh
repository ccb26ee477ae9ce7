#!/bin/bash
# secure_capture_oracle_test: the secure-mode test purposes against the embedded reference
# (every one must pass), then every secure packet of their captures verified by the spec's
# own AES-GCM implementation (secure_capture_check.py).
# Args: METAROCE ORACLE_DIR SPEC_TOOLS_DIR
set -euo pipefail
metaroce="$1" dir="$2" tools="$3"
export PYTHONDONTWRITEBYTECODE=1
out="${TEST_TMPDIR:-/tmp}/secure-run"
"$metaroce" run testcases/ext --profile metaroce-full --filter 'EXT-SE-*' --quiet --out "$out"
shopt -s nullglob
captures=("$out"/captures/EXT-SE-*.pcapng)
if [[ ${#captures[@]} -lt 8 ]]; then
  echo "secure_capture_oracle_test: expected the captures of 8 or more EXT-SE tests" >&2
  exit 1
fi
/usr/bin/python3 "$dir/secure_capture_check.py" "$tools" "${captures[@]}" 2>/dev/null
