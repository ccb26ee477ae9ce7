#!/bin/bash
# rxe_captures_test: the real Linux rxe captures (IPv4 and IPv6, 120 frames): every ICRC
# verifies, and every field decodes as tshark decodes it.
# Args: DECODER ORACLE_DIR PCAPNG...
set -euo pipefail
decoder="$1" dir="$2"
shift 2
export PYTHONDONTWRITEBYTECODE=1
args=()
for p in "$@"; do args+=(--pcap "$p"); done
/usr/bin/python3 "$dir/rxe_check.py" --decoder "$decoder" --frames 120 "${args[@]}"
