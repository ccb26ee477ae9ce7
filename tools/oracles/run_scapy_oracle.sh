#!/bin/bash
# scapy_oracle_test: builds a 10,000-packet Scapy corpus with a fixed seed in $TEST_TMPDIR
# (Scapy's own layers, Scapy's ICRC) and compares our decode with Scapy's dissection; then
# the same for the --extended corpus (metaroce_scapy layers, IPv6) built by the genrule.
# Args: DECODER ORACLE_DIR EXTENDED_PCAP EXTENDED_JSONL
set -euo pipefail
decoder="$1" dir="$2" ext_pcap="$3" ext_jsonl="$4"
export PYTHONDONTWRITEBYTECODE=1
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
/usr/bin/python3 "$dir/scapy_corpus.py" --seed 4791 --count 10000 \
  --out "$tmp/corpus.pcap" --expect "$tmp/corpus.jsonl"
/usr/bin/python3 "$dir/compare_scapy.py" --decoder "$decoder" \
  --pcap "$tmp/corpus.pcap" --expect "$tmp/corpus.jsonl"
/usr/bin/python3 "$dir/compare_scapy.py" --decoder "$decoder" --no-self-check \
  --pcap "$ext_pcap" --expect "$ext_jsonl"
