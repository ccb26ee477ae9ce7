#!/bin/bash
# golden_decode_test: the decoder still decodes pcaps/golden/ exactly as recorded (base and
# Part II frames).
# Args: DECODER ORACLE_DIR GOLDEN_DIR
set -euo pipefail
decoder="$1" dir="$2" golden="$3"
export PYTHONDONTWRITEBYTECODE=1
/usr/bin/python3 "$dir/golden_check.py" --decoder "$decoder" \
  --pcap "$golden/golden.pcap" --jsonl "$golden/golden.jsonl" \
  --pcap "$golden/golden_edge.pcap" --jsonl "$golden/golden_edge.jsonl" \
  --pcap "$golden/golden_ext.pcap" --jsonl "$golden/golden_ext.jsonl" \
  --pcap "$golden/golden_ext_secure.pcap" --jsonl "$golden/golden_ext_secure.jsonl" \
  --pcap "$golden/golden_ext_edge.pcap" --jsonl "$golden/golden_ext_edge.jsonl"
