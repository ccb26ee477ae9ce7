#!/bin/bash
# bench_table_test: tools/bench/bench_table_test.py under Debian's Python.
# Args: TEST_PY
set -euo pipefail
export PYTHONDONTWRITEBYTECODE=1
exec /usr/bin/python3 "$1"
