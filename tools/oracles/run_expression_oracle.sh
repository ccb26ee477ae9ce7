#!/bin/bash
# scapy_expression_test: every `<` and `>` packet expression of the suite, built by our
# builder (scapy_expression_dump) and evaluated by Scapy (compare_expressions.py), must
# give the same bytes. Args: DUMPER ORACLE_DIR FILE...
set -euo pipefail
dumper="$1" dir="$2"
shift 2
export PYTHONDONTWRITEBYTECODE=1
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
"$dumper" "$@" > "$tmp/expressions.jsonl"
/usr/bin/python3 "$dir/compare_expressions.py" "$tmp/expressions.jsonl"
