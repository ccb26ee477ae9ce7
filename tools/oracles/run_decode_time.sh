#!/bin/bash
# decode_time_test: the time `metaroce decode` prints for each frame is tshark's
# frame.time_epoch to the nanosecond, on the real rxe captures (epoch times, where a double
# of seconds is ~220 ns coarse).
# Args: DECODER PCAP...
set -euo pipefail
decoder="$1"
shift
checked=0
for p in "$@"; do
  ours=$("$decoder" decode "$p" | awk '{print $2}')
  theirs=$(tshark -r "$p" -T fields -e frame.time_epoch 2>/dev/null)
  if [[ "$ours" != "$theirs" ]]; then
    echo "FAIL $p: decode's times differ from tshark's frame.time_epoch:"
    diff <(echo "$theirs") <(echo "$ours") | head -10
    exit 1
  fi
  checked=$((checked + $(echo "$ours" | wc -l)))
done
echo "OK: $checked frame times equal tshark's in $# captures"
