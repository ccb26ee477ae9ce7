#!/bin/bash
# spec_examples_oracle_test: the spec's worked examples (genrule :spec_examples_pcap) decoded
# by us against Scapy's dissection by tools/scapy/metaroce.py, every field of every layer;
# the Part II ones through tshark with our Lua dissector; the base ones (and L2 to UDP of
# all) through tshark's built-in dissector. Our builder rebuilds them in scapy_builder_test.
# Args: DECODER ORACLE_DIR LUA PCAP JSONL
set -euo pipefail
decoder="$1" dir="$2" lua="$3" pcap="$4" jsonl="$5"
export PYTHONDONTWRITEBYTECODE=1
examples=$(wc -l <"$jsonl")
ext=$(grep -c '"version": 1' "$jsonl")
echo "spec_examples_oracle_test: $examples worked examples, $ext of them Part II (TVer 1)"
if [[ "$examples" -lt 25 || "$ext" -lt 15 ]]; then
  echo "spec_examples_oracle_test: expected the 25 examples of section 27, 15 of them Part II" >&2
  exit 1
fi
/usr/bin/python3 "$dir/compare_scapy.py" --decoder "$decoder" --pcap "$pcap" --expect "$jsonl"
/usr/bin/python3 "$dir/compare_tshark_ext.py" --decoder "$decoder" --lua "$lua" \
  --expect-icrc-ok --min-ext-frames "$ext" --pcap "$pcap"
/usr/bin/python3 "$dir/compare_tshark.py" --decoder "$decoder" --expect-icrc-ok \
  --min-frames "$examples" --pcap "$pcap"
