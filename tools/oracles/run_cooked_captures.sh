#!/bin/bash
# cooked_captures_test: Linux cooked captures (SLL, SLL2, pcap and pcapng) of real RoCEv2
# frames decode and analyze as their Ethernet originals; RAW and USER0 captures are refused.
# Args: DECODER ORACLE_DIR CAPTURE...
set -euo pipefail
decoder="$1" dir="$2"
shift 2
export PYTHONDONTWRITEBYTECODE=1
args=()
for p in "$@"; do args+=(--pcap "$p"); done
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
/usr/bin/python3 "$dir/cooked_capture_check.py" --decoder "$decoder" --tmp "$tmp" "${args[@]}"
