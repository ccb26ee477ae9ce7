#!/usr/bin/env bash
# ./metaroce test counts a target as skipped when skip_reason.sh names a reason: a GoogleTest
# GTEST_SKIP (test.xml), a script's SKIPPED: line in any shard (test.log); a target that ran
# every case has none.
set -uo pipefail
script=tools/ci/skip_reason.sh
data=tools/ci/testdata
fails=0
expect() {
  local dir=$1 want=$2 got
  got=$("$script" "$data/$dir")
  if [[ "$got" == "$want" ]]; then
    echo "ok   $dir: '$got'"
  else
    echo "FAIL $dir: expected '$want', got '$got'"
    fails=$((fails + 1))
  fi
}
expect skipped_gtest 'harness/dut/veth_agent_test.cpp:2: needs root & "x"'
expect skipped_script 'no qemu-system-x86_64'
expect passed_gtest ''
expect no_such_target ''
exit $((fails > 0))
