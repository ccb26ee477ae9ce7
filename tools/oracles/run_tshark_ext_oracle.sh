#!/bin/bash
# tshark_ext_oracle_test: the Part II (Ext) corpus through tshark with our Lua dissector
# (every metaroce.* field against our decode, compare_tshark_ext.py), then through tshark's
# built-in dissector for the Ethernet, 802.1Q, IP and UDP fields (compare_tshark.py, which
# leaves the TVer-1 transport to the Lua comparison and says how many).
# Args: DECODER ORACLE_DIR LUA EXT_PCAP SEED COUNT
set -euo pipefail
decoder="$1" dir="$2" lua="$3" pcap="$4" seed="$5" count="$6"
export PYTHONDONTWRITEBYTECODE=1
echo "tshark_ext_oracle_test: Ext corpus $(basename "$pcap"): seed $seed, $count frames"
/usr/bin/python3 "$dir/compare_tshark_ext.py" --decoder "$decoder" --lua "$lua" \
  --expect-icrc-ok --min-ext-frames "$count" --pcap "$pcap"
/usr/bin/python3 "$dir/compare_tshark.py" --decoder "$decoder" --expect-icrc-ok \
  --min-frames "$count" --pcap "$pcap"
