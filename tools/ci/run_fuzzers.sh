#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) and runs each for a bounded time
# on a copy of its committed corpus. New inputs that found coverage stay in the copy; a
# crash leaves its reproducer in LOG_DIR: commit it to the corpus as a regression test.
#
#   tools/ci/run_fuzzers.sh SECONDS LOG_DIR
set -uo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-60}
log_dir=${2:-$(mktemp -d)}
mkdir -p "$log_dir"
# A Bazel server of its own: the clang toolchain would otherwise evict the g++ build.
# One per checkout (a Bazel output base belongs to one workspace).
output_base="${HOME:-/root}/.cache/metaroce-fuzz-bazel-$(pwd | sha256sum | cut -c1-12)"
targets=(//reference/wire/fuzz:frame_decoder_fuzzer //reference/transport/fuzz:responder_fuzzer
  //harness/script/fuzz:script_parser_fuzzer)
status=0
if ! bazel --output_base="$output_base" build --noshow_progress --config=fuzz \
    --experimental_convenience_symlinks=ignore "${targets[@]}" \
    >"$log_dir/fuzz-build.log" 2>&1; then
  tail -30 "$log_dir/fuzz-build.log"
  exit 1
fi
bin_dir=$(bazel --output_base="$output_base" info --config=fuzz bazel-bin 2>/dev/null)
for t in "${targets[@]}"; do
  pkg=${t#//}
  pkg=${pkg%%:*}
  name=${t##*:}
  corpus="$log_dir/$name-corpus"
  mkdir -p "$corpus"
  cp "$pkg"/corpus/* "$corpus"/
  echo "fuzzing $name for ${seconds}s (seed corpus $(ls "$pkg/corpus" | wc -l) inputs)"
  if ! "$bin_dir/$pkg/$name" -max_total_time="$seconds" -timeout=5 -rss_limit_mb=2048 \
      -artifact_prefix="$log_dir/$name-" -print_final_stats=1 "$corpus" \
      >"$log_dir/$name.log" 2>&1; then
    tail -40 "$log_dir/$name.log"
    status=1
  else
    grep -E 'stat::number_of_executed_units|stat::peak_rss_mb' "$log_dir/$name.log" | tr '\n' ' '
    echo "($(ls "$corpus" | wc -l) corpus inputs after the run)"
  fi
done
exit $status
