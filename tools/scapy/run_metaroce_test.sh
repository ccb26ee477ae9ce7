#!/bin/bash
# metaroce_test: tools/scapy/metaroce_test.py under Debian's Python (python3-scapy 2.5).
# Args: TEST_PY
set -euo pipefail
export PYTHONDONTWRITEBYTECODE=1
exec /usr/bin/python3 "$1"
