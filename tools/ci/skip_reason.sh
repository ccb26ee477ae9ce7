#!/usr/bin/env bash
# skip_reason.sh DIR: why the test whose logs are in DIR (bazel-testlogs/<package>/<name>)
# skipped, on one line; nothing when it ran every case. GoogleTest writes
# <skipped message="file:line&#x0A;reason"> into test.xml; a script test prints
# "SKIPPED: reason" into test.log. Every shard's files are read.
set -uo pipefail
dir=$1
[[ -d "$dir" ]] || exit 0
reason=$(find "$dir" -name test.xml -exec grep -ho '<skipped message="[^"]*"' {} + 2>/dev/null |
  sed 's/<skipped message="//; s/"$//; s/&#x0A;/: /g; s/&quot;/"/g; s/&lt;/</g; s/&gt;/>/g; s/&amp;/\&/g' |
  head -1)
if [[ -z "$reason" ]]; then
  reason=$(find "$dir" -name test.log -exec grep -h '^SKIPPED:' {} + 2>/dev/null |
    sed 's/^SKIPPED: *//' | head -1)
fi
printf '%s' "$reason"
