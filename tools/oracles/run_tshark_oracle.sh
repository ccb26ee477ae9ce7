#!/bin/bash
# tshark_oracle_test: tshark -T json against our decode, field by field, on the Scapy
# corpus and the --extended corpus (RETH, AtomicETH, ImmDt, IETH, DETH, ... and IPv6).
# tshark's built-in dissector knows no Part II: the corpora's TVer-1 frames are compared
# there up to UDP only, and in full with our Lua dissector (compare_tshark_ext.py).
# Args: DECODER ORACLE_DIR LUA PCAP...
set -euo pipefail
decoder="$1" dir="$2" lua="$3"
shift 3
export PYTHONDONTWRITEBYTECODE=1
args=()
for p in "$@"; do args+=(--pcap "$p"); done
/usr/bin/python3 "$dir/compare_tshark.py" --decoder "$decoder" --expect-icrc-ok \
  --min-frames 10000 "${args[@]}"
/usr/bin/python3 "$dir/compare_tshark_ext.py" --decoder "$decoder" --lua "$lua" \
  --expect-icrc-ok --min-ext-frames 100 "${args[@]}"
