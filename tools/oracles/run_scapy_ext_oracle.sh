#!/bin/bash
# scapy_ext_oracle_test: the Part II (Ext) corpus built by the genrule :scapy_ext_corpus_pcap
# (scapy_corpus.py --ext, seed and count fixed in BUILD), decoded by us and compared with
# Scapy's dissection by tools/scapy/metaroce.py, layer by layer, every field.
# Args: DECODER ORACLE_DIR EXT_PCAP EXT_JSONL SEED COUNT
set -euo pipefail
decoder="$1" dir="$2" pcap="$3" jsonl="$4" seed="$5" count="$6"
export PYTHONDONTWRITEBYTECODE=1
echo "scapy_ext_oracle_test: Ext corpus $(basename "$pcap"): seed $seed, $count frames" \
  "(scapy_corpus.py --ext --seed $seed --count $count replays it)"
lines=$(wc -l < "$jsonl")
if [ "$lines" -ne "$count" ]; then
  echo "scapy_ext_oracle_test: $jsonl has $lines lines, BUILD says $count" >&2
  exit 1
fi
/usr/bin/python3 "$dir/compare_scapy.py" --decoder "$decoder" --pcap "$pcap" --expect "$jsonl"
