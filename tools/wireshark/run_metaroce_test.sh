#!/bin/bash
# metaroce_lua_test: tools/wireshark/metaroce.lua under Debian's tshark, checked against the
# Part II worked examples, random Ext frames, TVer-0 captures and planted faults.
# Runs from the runfiles root, where metaroce_test.py finds docs/spec and pcaps/rxe.
set -euo pipefail
export PYTHONDONTWRITEBYTECODE=1
exec /usr/bin/python3 tools/wireshark/metaroce_test.py --keep "${TEST_TMPDIR:-/tmp}/metaroce_lua" "$@"
