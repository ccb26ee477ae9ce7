#!/bin/bash
# tshark_oracle_test: tshark -T json against our decode, field by field, on the Scapy
# corpus and the --extended corpus (RETH, AtomicETH, ImmDt, IETH, DETH, ... and IPv6).
# These corpora draw no TVer 1 (it selects table 19.1): Part II frames are the Ext corpus's,
# compared with our Lua dissector in tshark_ext_oracle_test.
# Args: DECODER ORACLE_DIR PCAP...
set -euo pipefail
decoder="$1" dir="$2"
shift 2
export PYTHONDONTWRITEBYTECODE=1
args=()
for p in "$@"; do args+=(--pcap "$p"); done
/usr/bin/python3 "$dir/compare_tshark.py" --decoder "$decoder" --expect-icrc-ok \
  --min-frames 10000 "${args[@]}"
