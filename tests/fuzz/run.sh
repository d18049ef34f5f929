#!/bin/sh
# Build the libFuzzer harnesses (clang-19, build-fuzz/) and run each one
# for longer than CI does: tests/fuzz/run.sh [--seconds N] [harness...]
# (default 600 s each, every harness). Findings land in
# build-fuzz/fuzz-work/<harness>/artifacts; the run stops at the first.
# Record long runs without a finding in docs/fuzzing.md.
set -eu
repo=$(cd "$(dirname "$0")/../.." && pwd)
build="$repo/build-fuzz"
seconds=600
if [ "${1:-}" = "--seconds" ]; then
    seconds=$2
    shift 2
fi
CC=clang-19 cmake -S "$repo" -B "$build" -DJITUNWIND_FUZZ=ON -DJITUNWIND_BUILD_TESTBED=OFF >/dev/null
cmake --build "$build" -j2 --target fuzz_harnesses >/dev/null
harnesses=${*:-$(cd "$build/tests/fuzz" && ls fuzz_* | grep -v '\.' | sed 's/^fuzz_//')}
for h in $harnesses; do
    echo "== fuzz_$h: $seconds s"
    sh "$repo/tests/fuzz/run_one.sh" "$build/tests/fuzz/fuzz_$h" "$repo/tests/fuzz/corpus/$h" \
        "$build/fuzz-work" "$seconds" 2>&1 | grep -E 'INITED|DONE|ERROR|SUMMARY|Test unit written|stat::number_of_executed_units'
done
